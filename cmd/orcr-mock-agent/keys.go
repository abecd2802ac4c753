package main

import (
	"bytes"
	"time"
)

// keyKind classifies a decoded input event.
type keyKind int

const (
	keyText      keyKind = iota // printable text (typed or pasted) to insert
	keyEnter                    // \r or \n outside a bracketed paste
	keyBackspace                // DEL or ^H
	keyEsc                      // a lone ESC byte, not part of a sequence
	keyCtrlC                    // ^C
	keyCtrlD                    // ^D
	keyCtrlU                    // ^U: clear the input line
	keyEOF                      // input ended (err is set when it was an error)
)

// keyEvent is one decoded input event.
type keyEvent struct {
	kind keyKind
	text string // for keyText
	err  error  // for keyEOF: nil on a clean end of input
}

// Escape-sequence timing: a lone ESC is an ESC byte not followed by another
// byte within escWait; the rest of a started sequence must arrive within
// seqWait per byte.
const (
	escWait = 40 * time.Millisecond
	seqWait = 200 * time.Millisecond
)

var (
	pasteStart = []byte("\x1b[200~")
	pasteEnd   = []byte("\x1b[201~")
)

// inputChunk is one read from stdin; err ends the stream.
type inputChunk struct {
	data []byte
	err  error
}

// decoder turns raw terminal bytes into key events. It understands lone ESC,
// CSI and SS3 sequences (ignored, except the bracketed-paste markers),
// bracketed paste (whose content, newlines included, is inserted as text) and
// the control keys listed in [keyKind].
type decoder struct {
	in   <-chan inputChunk
	buf  []byte
	err  error // pending end of input, reported once buf is drained
	done bool
}

// fill waits up to wait (forever when wait < 0) for more input. It reports
// whether buf grew.
func (d *decoder) fill(wait time.Duration) bool {
	if d.done {
		return false
	}
	var c inputChunk
	var ok bool
	if wait < 0 {
		c, ok = <-d.in
	} else {
		t := time.NewTimer(wait)
		defer t.Stop()
		select {
		case c, ok = <-d.in:
		case <-t.C:
			return false
		}
	}
	if !ok {
		d.done = true
		return false
	}
	d.buf = append(d.buf, c.data...)
	if c.err != nil {
		d.done = true
		d.err = c.err
	}
	return len(c.data) > 0
}

// next returns the next event, blocking until one is complete. After keyEOF
// it keeps returning keyEOF.
func (d *decoder) next() keyEvent {
	for {
		for len(d.buf) == 0 {
			if d.done {
				return d.eof()
			}
			d.fill(-1)
		}
		b := d.buf[0]
		switch {
		case b == '\r' || b == '\n':
			d.buf = d.buf[1:]
			return keyEvent{kind: keyEnter}
		case b == 0x7f || b == 0x08:
			d.buf = d.buf[1:]
			return keyEvent{kind: keyBackspace}
		case b == 0x03:
			d.buf = d.buf[1:]
			return keyEvent{kind: keyCtrlC}
		case b == 0x04:
			d.buf = d.buf[1:]
			return keyEvent{kind: keyCtrlD}
		case b == 0x15:
			d.buf = d.buf[1:]
			return keyEvent{kind: keyCtrlU}
		case b == 0x1b:
			if ev, ok := d.escape(); ok {
				return ev
			}
		case b == '\t' || b >= 0x20:
			i := 1
			for i < len(d.buf) && (d.buf[i] == '\t' || d.buf[i] >= 0x20) && d.buf[i] != 0x7f {
				i++
			}
			text := string(d.buf[:i])
			d.buf = d.buf[i:]
			return keyEvent{kind: keyText, text: text}
		default:
			d.buf = d.buf[1:] // other control bytes are ignored
		}
	}
}

// eof returns the end-of-input event.
func (d *decoder) eof() keyEvent {
	return keyEvent{kind: keyEOF, err: d.err}
}

// escape handles d.buf starting with ESC. It returns an event, or ok=false
// when the sequence was consumed and ignored.
func (d *decoder) escape() (keyEvent, bool) {
	if len(d.buf) == 1 && !d.fill(escWait) {
		d.buf = d.buf[1:]
		return keyEvent{kind: keyEsc}, true
	}
	switch d.buf[1] {
	case '[':
		return d.csi()
	case 'O':
		// SS3: ESC O <final>.
		for len(d.buf) < 3 {
			if !d.fill(seqWait) {
				d.buf = d.buf[:0]
				return keyEvent{}, false
			}
		}
		d.buf = d.buf[3:]
		return keyEvent{}, false
	default:
		// ESC followed by anything else (another ESC, text): a lone ESC;
		// the following bytes are decoded on their own.
		d.buf = d.buf[1:]
		return keyEvent{kind: keyEsc}, true
	}
}

// csi consumes a CSI sequence at the start of d.buf. A bracketed-paste start
// marker yields the pasted text; every other sequence is ignored.
func (d *decoder) csi() (keyEvent, bool) {
	i := 2
	for {
		for i >= len(d.buf) {
			if !d.fill(seqWait) {
				d.buf = d.buf[:0] // truncated sequence: drop it
				return keyEvent{}, false
			}
		}
		if c := d.buf[i]; c >= 0x40 && c <= 0x7e {
			break
		}
		i++
	}
	seq := d.buf[:i+1]
	if !bytes.Equal(seq, pasteStart) {
		d.buf = d.buf[i+1:]
		return keyEvent{}, false
	}
	d.buf = d.buf[i+1:]
	return d.paste(), true
}

// paste collects bracketed-paste content up to the end marker (or the end of
// input). Carriage returns become newlines. Each read is searched once (a marker
// split across reads included), so a paste of megabytes costs linear time.
func (d *decoder) paste() keyEvent {
	from := 0
	for {
		if j := bytes.Index(d.buf[from:], pasteEnd); j >= 0 {
			j += from
			text := d.buf[:j]
			d.buf = d.buf[j+len(pasteEnd):]
			return keyEvent{kind: keyText, text: normalizePaste(text)}
		}
		from = max(0, len(d.buf)-len(pasteEnd)+1)
		if !d.fill(-1) && d.done {
			text := d.buf
			d.buf = nil
			return keyEvent{kind: keyText, text: normalizePaste(text)}
		}
	}
}

// normalizePaste converts CRLF and CR to LF.
func normalizePaste(b []byte) string {
	b = bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n"))
	b = bytes.ReplaceAll(b, []byte("\r"), []byte("\n"))
	return string(b)
}
