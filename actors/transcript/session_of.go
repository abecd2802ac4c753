package transcript

import (
	"os"
	"path/filepath"
)

// SessionOf is the conversation pointer a located transcript names, for the formats
// whose CLI resumes from it (docs/providers.md §12): pi's session file is its own
// pointer (kind path, the absolute path), gemini's header carries the sessionId its
// `--resume` takes (kind id). ok is false for other formats and for a gemini file that
// cannot be read or names no session.
func SessionOf(format, path string) (kind, value string, ok bool) {
	switch format {
	case FormatPi:
		abs, err := filepath.Abs(path)
		if err != nil {
			return "", "", false
		}
		return SessionKindPath, filepath.Clean(abs), true
	case FormatGemini:
		data, err := os.ReadFile(path)
		if err != nil {
			return "", "", false
		}
		if _, id := geminiDoc(data); id != "" {
			return SessionKindID, id, true
		}
	}
	return "", "", false
}
