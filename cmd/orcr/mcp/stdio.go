package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The line discipline of `orcr mcp` on stdio (docs/mcp.md §1.2). The SDK's stdio
// transport ends the session on the first line it cannot decode, and on the end of
// stdin drops the answers of the requests still being served. So every line is checked
// here first: a line that is no JSON-RPC message the SDK accepts is answered with the
// JSON-RPC error of its kind and never reaches the SDK; the end of stdin is passed on
// only once every request handed to the SDK has been answered.

// MaxLine is the longest line read from stdin, without its newline: the SDK's own
// bound on a message. A longer line is answered -32700 and skipped.
const MaxLine = sdk.DefaultMaxLineLength

// JSON-RPC 2.0 error codes of the lines refused here.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
)

// CheckLine reads one line of stdin (without its newline). A line the SDK accepts is
// returned as msg; a blank line gives neither; any other line gives the JSON-RPC error
// response to write instead, as one line of JSON without its newline: -32700 when the
// line is not one JSON value, -32600 when it is JSON but no JSON-RPC 2.0 request,
// notification or response (another "jsonrpc", an id that is neither a string nor a
// number, a method that is not a string, a batch array: MCP dropped batches in
// 2025-06-18). The error's id is the line's own when it is a string or a number, or
// else null.
func CheckLine(line []byte) (msg jsonrpc.Message, reply []byte) {
	line = bytes.TrimRight(line, "\r")
	if len(bytes.TrimSpace(line)) == 0 {
		return nil, nil
	}
	var v json.RawMessage
	if err := json.Unmarshal(line, &v); err != nil {
		return nil, errorLine(nil, codeParseError, "Parse error: "+err.Error())
	}
	if v = bytes.TrimSpace(v); v[0] == '[' {
		return nil, errorLine(nil, codeInvalidRequest, "Invalid Request: JSON-RPC batches are not supported")
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		return nil, errorLine(lineID(line), codeInvalidRequest, "Invalid Request: "+err.Error())
	}
	return msg, nil
}

// lineID is the id member of a JSON object line when it is a string or a number.
func lineID(line []byte) json.RawMessage {
	var probe struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(line, &probe) != nil || len(probe.ID) == 0 {
		return nil
	}
	switch c := probe.ID[0]; {
	case c == '"', c == '-', c >= '0' && c <= '9':
		return probe.ID
	}
	return nil
}

// errorLine is a JSON-RPC error response with id (null when nil or not valid UTF-8).
func errorLine(id json.RawMessage, code int, message string) []byte {
	if id == nil || !utf8.Valid(id) {
		id = json.RawMessage("null")
	}
	type wireError struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	type response struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   wireError       `json:"error"`
	}
	b, err := json.Marshal(response{"2.0", id, wireError{code, message}})
	if err != nil { // id came from a line json.Unmarshal accepted; never expected
		b, _ = json.Marshal(response{"2.0", json.RawMessage("null"), wireError{code, message}})
	}
	return b
}

// stdio is one stdio session's two ends between the process's stdin/stdout and the
// SDK's transport, and the requests handed to the SDK and not answered yet.
type stdio struct {
	ctx    context.Context
	in     *bufio.Reader
	closer io.Closer // stdin, when it can be closed

	writeMu sync.Mutex
	out     io.Writer

	mu       sync.Mutex
	pending  map[jsonrpc.ID]int
	answered chan struct{} // a token when an answer was written
	closed   chan struct{}
	once     sync.Once

	rest []byte // what remains of the line being handed to the SDK
}

func newStdio(ctx context.Context, in io.Reader, out io.Writer) *stdio {
	s := &stdio{ctx: ctx, in: bufio.NewReaderSize(in, 64<<10), out: out,
		pending: map[jsonrpc.ID]int{}, answered: make(chan struct{}, 1), closed: make(chan struct{})}
	if c, ok := in.(io.Closer); ok {
		s.closer = c
	}
	return s
}

// reader and writer are the two ends handed to the SDK's IOTransport.
func (s *stdio) reader() io.ReadCloser  { return stdioReader{s} }
func (s *stdio) writer() io.WriteCloser { return stdioWriter{s} }

type stdioReader struct{ s *stdio }

// Read hands the SDK the next line that passed CheckLine, answering the others itself.
// At the end of stdin it waits until every request handed over has been answered (or
// the session ends) before returning io.EOF.
func (r stdioReader) Read(p []byte) (int, error) {
	s := r.s
	for len(s.rest) == 0 {
		line, err := s.readLine()
		if line != nil {
			msg, reply := CheckLine(line)
			if reply != nil {
				if werr := s.write(append(reply, '\n')); werr != nil {
					return 0, werr
				}
			}
			if msg != nil {
				s.handOver(msg)
				s.rest = append(bytes.TrimRight(line, "\r"), '\n')
			}
		}
		if err != nil {
			if len(s.rest) > 0 {
				break // the last line without a newline: hand it over first
			}
			if errors.Is(err, io.EOF) {
				s.drain()
			}
			return 0, err
		}
	}
	n := copy(p, s.rest)
	s.rest = s.rest[n:]
	return n, nil
}

func (r stdioReader) Close() error {
	r.s.once.Do(func() { close(r.s.closed) })
	if r.s.closer != nil {
		return r.s.closer.Close()
	}
	return nil
}

// readLine reads one line without its newline. A line longer than MaxLine is skipped
// to its end and answered -32700 here (line nil). err is the reader's error after the
// last line (io.EOF at the end of stdin), which may come with a last unterminated line.
func (s *stdio) readLine() ([]byte, error) {
	var line []byte
	tooLong := false
	for {
		chunk, err := s.in.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > MaxLine+1 {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if tooLong {
			msg := "Parse error: a line longer than " + strconv.Itoa(MaxLine) + " bytes"
			if werr := s.write(append(errorLine(nil, codeParseError, msg), '\n')); werr != nil && err == nil {
				err = werr
			}
			return nil, err
		}
		if len(line) > 0 && line[len(line)-1] == '\n' {
			line = line[:len(line)-1]
		} else if len(line) == 0 {
			line = nil
		}
		return line, err
	}
}

// handOver records a request the SDK is given, so the end of stdin waits for its
// answer; a cancellation notification forgets its request (the SDK may not answer it).
func (s *stdio) handOver(msg jsonrpc.Message) {
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if req.IsCall() {
		s.pending[req.ID]++
		return
	}
	if req.Method == "notifications/cancelled" {
		var p struct {
			RequestID any `json:"requestId"`
		}
		if json.Unmarshal(req.Params, &p) == nil {
			if id, err := jsonrpc.MakeID(p.RequestID); err == nil {
				delete(s.pending, id)
			}
		}
	}
}

// drain waits until no request handed to the SDK is unanswered, the session closed or
// its context ended.
func (s *stdio) drain() {
	for {
		s.mu.Lock()
		n := len(s.pending)
		s.mu.Unlock()
		if n == 0 {
			return
		}
		select {
		case <-s.answered:
		case <-s.closed:
			return
		case <-s.ctx.Done():
			return
		}
	}
}

// write writes one whole message line to stdout.
func (s *stdio) write(b []byte) error {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	_, err := s.out.Write(b)
	return err
}

type stdioWriter struct{ s *stdio }

// Write passes one message line of the SDK to stdout (the SDK writes each message in
// one call) and counts the answer of a request handed over.
func (w stdioWriter) Write(b []byte) (int, error) {
	s := w.s
	if err := s.write(b); err != nil {
		return 0, err
	}
	if msg, err := jsonrpc.DecodeMessage(bytes.TrimRight(b, "\n")); err == nil {
		if resp, ok := msg.(*jsonrpc.Response); ok {
			s.mu.Lock()
			if s.pending[resp.ID]--; s.pending[resp.ID] <= 0 {
				delete(s.pending, resp.ID)
			}
			s.mu.Unlock()
			select {
			case s.answered <- struct{}{}:
			default:
			}
		}
	}
	return len(b), nil
}

// Close leaves stdout open: the session's end is not the process's.
func (stdioWriter) Close() error { return nil }
