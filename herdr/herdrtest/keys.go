package herdrtest

import (
	"fmt"
	"strings"
)

// namedPunct maps herdr's named punctuation keys to their characters.
var namedPunct = map[string]byte{
	"minus": '-', "plus": '+', "comma": ',', "period": '.', "slash": '/',
	"backslash": '\\', "quote": '\'', "double_quote": '"', "semicolon": ';',
	"colon": ':', "percent": '%', "ampersand": '&', "backtick": '`',
}

// errInvalidKey is returned by encodeKey for names herdr rejects.
type errInvalidKey string

func (e errInvalidKey) Error() string { return "unsupported key " + string(e) }

// encodeKey turns one herdr key name into the bytes written to the PTY in legacy
// (non-kitty) keyboard mode. appCursor selects SS3 arrows (DECCKM).
func encodeKey(name string, appCursor bool) ([]byte, error) {
	bad := errInvalidKey(name)
	if name == "" {
		return nil, bad
	}
	// C-x / c-x alias for ctrl+x.
	if len(name) == 3 && (name[0] == 'C' || name[0] == 'c') && name[1] == '-' {
		name = "ctrl+" + name[2:]
	}
	var ctrl, alt, shift bool
	base := name
	if len(name) > 1 && strings.Contains(name, "+") {
		parts := strings.Split(name, "+")
		base = parts[len(parts)-1]
		if base == "" { // "ctrl++" style: the key itself is '+'
			base = "+"
			parts = parts[:len(parts)-2]
		} else {
			parts = parts[:len(parts)-1]
		}
		for _, m := range parts {
			switch strings.ToLower(m) {
			case "ctrl", "control":
				ctrl = true
			case "alt", "meta", "option":
				alt = true
			case "shift":
				shift = true
			default:
				return nil, bad
			}
		}
	}
	lower := strings.ToLower(base)
	var out []byte
	mod := 1
	if shift {
		mod++
	}
	if alt {
		mod += 2
	}
	if ctrl {
		mod += 4
	}
	csiKey := func(final byte) []byte {
		if mod > 1 {
			return fmt.Appendf(nil, "\x1b[1;%d%c", mod, final)
		}
		if appCursor {
			return []byte{0x1b, 'O', final}
		}
		return []byte{0x1b, '[', final}
	}
	switch lower {
	case "enter", "return":
		out = []byte{'\r'}
	case "esc", "escape":
		out = []byte{0x1b}
	case "tab":
		if shift {
			return []byte("\x1b[Z"), nil
		}
		out = []byte{'\t'}
	case "backspace", "bs":
		out = []byte{0x7f}
		if ctrl {
			out = []byte{0x08}
			ctrl = false
		}
	case "space":
		out = []byte{' '}
		if ctrl {
			out = []byte{0}
			ctrl = false
		}
	case "up":
		return csiKey('A'), nil
	case "down":
		return csiKey('B'), nil
	case "right":
		return csiKey('C'), nil
	case "left":
		return csiKey('D'), nil
	default:
		if f, ok := functionKey(lower); ok {
			return f, nil
		}
		if c, ok := namedPunct[lower]; ok {
			out = []byte{c}
		} else if len(base) == 1 && base[0] >= 0x21 && base[0] < 0x7f {
			c := base[0]
			if shift && c >= 'a' && c <= 'z' {
				c -= 'a' - 'A'
			}
			out = []byte{c}
		} else {
			return nil, bad
		}
	}
	if ctrl {
		c := out[0]
		switch {
		case c >= 'a' && c <= 'z':
			out = []byte{c - 'a' + 1}
		case c >= 'A' && c <= 'Z':
			out = []byte{c - 'A' + 1}
		case c >= '@' && c <= '_':
			out = []byte{c - '@'}
		case c == '?':
			out = []byte{0x7f}
		}
	}
	return altPrefix(out, alt), nil
}

func altPrefix(b []byte, alt bool) []byte {
	if alt {
		return append([]byte{0x1b}, b...)
	}
	return b
}

func functionKey(name string) ([]byte, bool) {
	codes := map[string]string{
		"f1": "\x1bOP", "f2": "\x1bOQ", "f3": "\x1bOR", "f4": "\x1bOS",
		"f5": "\x1b[15~", "f6": "\x1b[17~", "f7": "\x1b[18~", "f8": "\x1b[19~",
		"f9": "\x1b[20~", "f10": "\x1b[21~", "f11": "\x1b[23~", "f12": "\x1b[24~",
	}
	s, ok := codes[name]
	return []byte(s), ok
}

// encodeKeys validates every key before encoding any, as herdr does.
func encodeKeys(keys []string, appCursor bool) ([]byte, error) {
	var out []byte
	for _, k := range keys {
		b, err := encodeKey(k, appCursor)
		if err != nil {
			return nil, err
		}
		out = append(out, b...)
	}
	return out, nil
}
