package runproc

// ParseStat is parseStat with its result spelled out.
func ParseStat(line string) (start int64, zombie, ok bool) {
	p, ok := parseStat([]byte(line))
	return p.start, p.zombie, ok
}
