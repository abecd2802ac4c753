package schedule

// Masks exposes the parsed fields to the grammar tests: one bit per selected value, and
// whether the day fields were the literal `*`.
func (c *Cron) Masks() (minute, hour, dom, month, dow uint64, anyDom, anyDow bool) {
	return c.minute, c.hour, c.dom, c.month, c.dow, c.anyDom, c.anyDow
}

// LocalZoneNameWith is LocalZoneName with its environment and link reading replaced.
var LocalZoneNameWith = localZoneName
