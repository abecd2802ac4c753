package runproc

// ShimExit is what the shim's own wait status said, whatever exit.json says.
func ShimExit(p *Process) Exit {
	p.Wait()
	return p.shim
}

// RuneCut and MaxRecordText expose the cutting of long lines.
var RuneCut = runeCut

const MaxRecordText = maxRecordText
