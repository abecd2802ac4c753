package sockettest

import "flag"

// DefaultParallel sets how many tests of the calling package run at once when -parallel
// was not given; call it from TestMain. The end-to-end packages' tests mostly wait on
// other processes (servers, herdr stand-ins, mock agents, their turn timings), not on
// the CPU: go test's default, GOMAXPROCS, would leave the two cores of the test machine
// idle most of the run.
func DefaultParallel(n string) {
	if !flag.Parsed() {
		flag.Parse()
	}
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		flag.Set("test.parallel", n)
	}
}
