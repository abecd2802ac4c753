// Package modeltest is a model stand-in for tests (docs/providers.md §10.1): one HTTP
// server on loopback that answers the real claude and codex CLIs as their models would,
// speaking the Anthropic Messages API (claude, through ANTHROPIC_BASE_URL), the
// OpenAI Responses API as codex uses it (a codex model provider with wire_api
// "responses") and the OpenAI Chat Completions API (the OpenAI-compatible agent CLIs). What it answers is scripted by directives in the latest user text
// ([ParseDirectives]); it records every request it got, so a test can check what
// reached the model. It never uses the network.
package modeltest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// The APIs a [Request] came through.
const (
	Anthropic = "anthropic"
	OpenAI    = "openai"      // the Responses API (and GET /v1/models without Anthropic headers)
	Chat      = "openai-chat" // the Chat Completions API
	Gemini    = "gemini"      // the Gemini API (generateContent)
)

// defaultSay is the answer of a user text without say=.
const defaultSay = "ok"

// defaultResetS is the limit's reset of a limit=429 without reset=.
const defaultResetS = 60

// maxBody bounds a request body.
const maxBody = 32 << 20

// Request is one request the stand-in got.
type Request struct {
	At     time.Time
	API    string // Anthropic, OpenAI, Chat or Gemini; "" for a path no API has
	Method string
	Path   string
	Model  string
	Stream bool
	Tools  []string // the names of the tools the request offered
	// Prompt is the latest user text: the text blocks of the last user message that is
	// not a tool result, claude's <system-reminder> blocks left out, joined by "\n".
	Prompt string
	// ToolResult is the output of the tool result the request ends with, "" when it
	// does not end with one.
	ToolResult string
	FollowUp   bool // the request ends with a tool result
	// Side is a side request of the CLI, not a turn of its conversation: one bound to a
	// JSON schema (codex's title). It gets no tool call and no stall.
	Side   bool
	Status int       // the status the stand-in answered, 0 while it answers
	Done   time.Time // when the answer's last byte was written (zero while it answers)
	Body   []byte

	index int // where in Server.reqs, -1 before record
}

// Server is a running model stand-in.
type Server struct {
	ln  net.Listener
	srv *http.Server

	mu        sync.Mutex
	reqs      []Request
	firstSeen map[string]time.Time // limit=: when a prompt was first seen
	overloads map[string]int       // overloaded=: how many times a prompt was answered 529
	released  chan struct{}        // closed by Release: stalls end
	seq       int
}

// Start starts a stand-in on 127.0.0.1 at a free port.
func Start() (*Server, error) { return Listen("127.0.0.1:0") }

// Listen starts a stand-in on addr, which must be a loopback address.
func Listen(addr string) (*Server, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("modeltest: %s is not a loopback address", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s := &Server{
		ln:        ln,
		firstSeen: map[string]time.Time{},
		overloads: map[string]int{},
		released:  make(chan struct{}),
	}
	s.srv = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	go s.srv.Serve(ln) //nolint:errcheck // ends with ErrServerClosed at Close
	return s, nil
}

// URL is the stand-in's base URL, "http://127.0.0.1:<port>" (ANTHROPIC_BASE_URL; a codex
// provider's base_url is URL()+"/v1").
func (s *Server) URL() string { return "http://" + s.ln.Addr().String() }

// Close stops the stand-in and ends every stream still open.
func (s *Server) Close() error {
	s.Release()
	return s.srv.Close()
}

// Release ends every stall, now and later: a stalled stream carries on.
func (s *Server) Release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-s.released:
	default:
		close(s.released)
	}
}

// Requests returns a copy of every request so far, in arrival order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// Turns returns the requests that opened a turn of the agent through api: a request to
// the API's turn endpoint that offered tools (claude's side requests offer none), is
// not a [Request.Side] one and did not end with a tool result.
func (s *Server) Turns(api string) []Request {
	var out []Request
	for _, r := range s.Requests() {
		_, method, gemini := geminiRoute(r.Path)
		if r.API == api && r.Method == http.MethodPost && !r.FollowUp && !r.Side && len(r.Tools) > 0 &&
			(r.Path == "/v1/messages" || r.Path == "/v1/responses" || r.Path == "/v1/chat/completions" ||
				gemini && method != "countTokens") {
			out = append(out, r)
		}
	}
	return out
}

// record appends r, remembering where for answered.
func (s *Server) record(r *Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r.index = len(s.reqs)
	s.reqs = append(s.reqs, *r)
}

// answered stores r's final state (its status) over what record stored.
func (s *Server) answered(r *Request) {
	r.Done = time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.index < 0 {
		r.index = len(s.reqs)
		s.reqs = append(s.reqs, *r)
		return
	}
	s.reqs[r.index] = *r
}

func (s *Server) nextID() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	return s.seq
}

// ServeHTTP answers one request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	rec := Request{At: time.Now(), Method: r.Method, Path: r.URL.Path, Body: body, index: -1}
	defer func() { s.answered(&rec) }()
	if err != nil {
		rec.Status = http.StatusBadRequest
		http.Error(w, err.Error(), rec.Status)
		return
	}
	path := strings.TrimSuffix(r.URL.Path, "/")
	switch {
	case r.Method == http.MethodPost && path == "/v1/messages":
		rec.API = Anthropic
		rec.Status = s.messages(w, r.Context(), body, &rec)
	case r.Method == http.MethodPost && path == "/v1/messages/count_tokens":
		rec.API = Anthropic
		rec.Status = countTokens(w, body)
	case r.Method == http.MethodGet && (path == "/v1/models" || strings.HasPrefix(path, "/v1/models/")):
		rec.API = Anthropic
		if r.Header.Get("x-api-key") == "" && r.Header.Get("anthropic-version") == "" {
			rec.API = OpenAI
		}
		rec.Status = models(w, rec.API, strings.TrimPrefix(path, "/v1/models"))
	case r.Method == http.MethodPost && path == "/v1/responses":
		rec.API = OpenAI
		rec.Status = s.responses(w, r.Context(), body, &rec)
	case r.Method == http.MethodPost && path == "/v1/chat/completions":
		rec.API = Chat
		rec.Status = s.chat(w, r.Context(), body, &rec)
	case r.Method == http.MethodPost && strings.HasPrefix(path, "/v1beta/models/"):
		model, method, ok := geminiRoute(path)
		rec.API = Gemini
		if !ok {
			rec.Status = geminiError(w, http.StatusNotFound, "NOT_FOUND", "the model stand-in has no POST "+r.URL.Path, nil)
			break
		}
		rec.Status = s.gemini(w, r, body, &rec, model, method)
	default:
		rec.Status = http.StatusNotFound
		writeJSON(w, rec.Status, nil, map[string]any{"type": "error", "error": map[string]any{
			"type": "not_found_error", "message": "the model stand-in has no " + r.Method + " " + r.URL.Path}})
	}
}

// gate applies the directives that answer instead of the model: overloaded, limit=429.
// It returns the status of the error answer it wrote, 0 when the model is to answer.
func (s *Server) gate(w http.ResponseWriter, api, prompt string, d Directives) int {
	key := api + "\x00" + prompt
	now := time.Now()
	s.mu.Lock()
	overloaded := false
	if d.Overload != 0 && (d.Overload < 0 || s.overloads[key] < d.Overload) {
		s.overloads[key]++
		overloaded = true
	}
	first, seen := s.firstSeen[key]
	if !seen {
		first = now
		s.firstSeen[key] = now
	}
	s.mu.Unlock()
	if overloaded {
		return overloadedError(w, api)
	}
	if !d.Limit {
		return 0
	}
	resetS := d.ResetS
	if resetS == 0 {
		resetS = defaultResetS
	}
	reset := first.Add(time.Duration(resetS) * time.Second)
	if !now.Before(reset) {
		return 0
	}
	return limitError(w, api, reset, now)
}

// stall sends the headers and waits until stallMS passed (0: until Release) or the
// client left; it reports whether the stream is to carry on.
func (s *Server) stall(ctx context.Context, w http.ResponseWriter, d Directives) bool {
	if !d.Stall && d.StallMS == 0 {
		return true
	}
	w.WriteHeader(http.StatusOK)
	flush(w)
	var timer <-chan time.Time
	if d.StallMS > 0 {
		t := time.NewTimer(time.Duration(d.StallMS) * time.Millisecond)
		defer t.Stop()
		timer = t.C
	}
	s.mu.Lock()
	released := s.released
	s.mu.Unlock()
	select {
	case <-ctx.Done():
		return false
	case <-released:
	case <-timer:
	}
	return true
}

// answerText is what a turn says: say= or the default.
func answerText(d Directives) string {
	if d.Say != "" {
		return d.Say
	}
	return defaultSay
}

// usage is the token counts a turn reports: tokens= or an estimate from the sizes.
func usage(d Directives, body []byte, out string) (in, outN, cacheRead, cacheNew int) {
	if d.Tokens {
		return d.TokensIn, d.TokensOut, d.CacheRead, d.CacheNew
	}
	return len(body)/4 + 1, len(out)/4 + 1, 0, 0
}

// sse writes server-sent events, pausing between them.
type sse struct {
	w     http.ResponseWriter
	ctx   context.Context
	pause time.Duration
	n     int
}

// send writes one event; event "" writes a data-only event, as Chat Completions streams.
func (e *sse) send(event string, data any) bool {
	if e.n > 0 && e.pause > 0 {
		t := time.NewTimer(e.pause)
		select {
		case <-e.ctx.Done():
			t.Stop()
			return false
		case <-t.C:
		}
	}
	e.n++
	b, err := json.Marshal(data)
	if err != nil {
		return false
	}
	if event != "" {
		if _, err := fmt.Fprintf(e.w, "event: %s\n", event); err != nil {
			return false
		}
	}
	if _, err := fmt.Fprintf(e.w, "data: %s\n\n", b); err != nil {
		return false
	}
	flush(e.w)
	return e.ctx.Err() == nil
}

// done ends a data-only stream with "data: [DONE]".
func (e *sse) done() {
	if _, err := io.WriteString(e.w, "data: [DONE]\n\n"); err == nil {
		flush(e.w)
	}
}

func flush(w http.ResponseWriter) {
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

func sseHeaders(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
}

func writeJSON(w http.ResponseWriter, status int, headers map[string]string, v any) int {
	for k, val := range headers {
		w.Header().Set(k, val)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b, _ := json.Marshal(v)
	w.Write(append(b, '\n')) //nolint:errcheck // the client may have left
	return status
}

// chunks splits s into up to n pieces of about equal size (at least one, "" for "").
func chunks(s string, n int) []string {
	if len(s) <= 1 || n <= 1 {
		return []string{s}
	}
	size := (len(s) + n - 1) / n
	var out []string
	for len(s) > size {
		cut := size
		for cut < len(s) && !utf8Start(s[cut]) {
			cut++
		}
		out = append(out, s[:cut])
		s = s[cut:]
	}
	return append(out, s)
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// textOf reads a content value that is a string or a list of blocks with text.
func textOf(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &blocks) != nil {
		return string(bytes.TrimSpace(raw))
	}
	var parts []string
	for _, b := range blocks {
		if b.Text != "" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}
