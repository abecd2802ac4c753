package sockettest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// Validator checks frames against the schema document `orcr api schema --json`
// publishes: responses against envelope.response and the method's result schema,
// event frames against envelope.event with a registered kind (or a control kind).
type Validator struct {
	responses *jsonschema.Schema
	events    *jsonschema.Schema
	results   map[string]*jsonschema.Schema
	kinds     map[string]bool
}

var (
	validatorOnce sync.Once
	validator     *Validator
	validatorErr  error
)

// SchemaValidator compiles the schema document once per process.
func SchemaValidator() (*Validator, error) {
	validatorOnce.Do(func() { validator, validatorErr = newValidator(api.SchemaJSON()) })
	return validator, validatorErr
}

func newValidator(doc []byte) (*Validator, error) {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	const url = "orcr://schema.json"
	if err := c.AddResource(url, v); err != nil {
		return nil, err
	}
	// The document itself must be a valid JSON Schema.
	if _, err := c.Compile(url); err != nil {
		return nil, fmt.Errorf("schema document does not compile: %w", err)
	}
	val := &Validator{results: map[string]*jsonschema.Schema{}, kinds: map[string]bool{}}
	if val.responses, err = c.Compile(url + "#/envelope/response"); err != nil {
		return nil, err
	}
	if val.events, err = c.Compile(url + "#/envelope/event"); err != nil {
		return nil, err
	}
	var parsed struct {
		Methods map[string]json.RawMessage `json:"methods"`
		Events  map[string]json.RawMessage `json:"events"`
	}
	json.Unmarshal(doc, &parsed)
	for name := range parsed.Methods {
		ptr := strings.ReplaceAll(name, "~", "~0")
		if val.results[name], err = c.Compile(url + "#/methods/" + ptr + "/result"); err != nil {
			return nil, err
		}
	}
	for k := range parsed.Events {
		val.kinds[k] = true
	}
	return val, nil
}

// Frame validates one reply frame. method is the request's method for a response ("" if
// unknown, e.g. an envelope error); it is ignored for event frames.
func (v *Validator) Frame(frame []byte, method string) error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(frame))
	if err != nil {
		return fmt.Errorf("frame is not JSON: %w", err)
	}
	var head struct {
		Subscription *int64          `json:"subscription"`
		OK           *bool           `json:"ok"`
		Result       json.RawMessage `json:"result"`
		Seq          int64           `json:"seq"`
		Event        struct {
			Kind string `json:"kind"`
		} `json:"event"`
	}
	if err := json.Unmarshal(frame, &head); err != nil {
		return err
	}
	if head.Subscription != nil {
		if err := v.events.Validate(inst); err != nil {
			return fmt.Errorf("event frame %s: %w", frame, err)
		}
		k := head.Event.Kind
		switch {
		case head.Seq == 0 && (k == wire.KindServerStopping || k == wire.KindCursorExpired):
		case head.Seq > 0 && (v.kinds[k] || strings.HasPrefix(k, "debug.")):
		default:
			return fmt.Errorf("event frame %s: kind %q at seq %d is not registered", frame, k, head.Seq)
		}
		return nil
	}
	if err := v.responses.Validate(inst); err != nil {
		return fmt.Errorf("response %s: %w", frame, err)
	}
	if head.OK != nil && *head.OK && method != "" {
		rs, ok := v.results[method]
		if !ok {
			if strings.HasPrefix(method, "__debug.") {
				return nil
			}
			return fmt.Errorf("response to unknown method %q", method)
		}
		res, err := jsonschema.UnmarshalJSON(bytes.NewReader(head.Result))
		if err != nil {
			return err
		}
		if err := rs.Validate(res); err != nil {
			return fmt.Errorf("result of %s %s: %w", method, head.Result, err)
		}
	}
	return nil
}

// Result validates result, the result object of a successful response to method,
// against the method's result schema (methods[method].result).
func (v *Validator) Result(method string, result []byte) error {
	rs, ok := v.results[method]
	if !ok {
		return fmt.Errorf("unknown method %q", method)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(result))
	if err != nil {
		return fmt.Errorf("result is not JSON: %w", err)
	}
	if err := rs.Validate(inst); err != nil {
		return fmt.Errorf("result of %s %s: %w", method, result, err)
	}
	return nil
}

// Envelope validates one CLI --json envelope line (docs/cli.md §1.2: the socket response
// envelope without its id): the envelope shape, then for ok:true the result against
// methods[method].result.
func (v *Validator) Envelope(method string, line []byte) error {
	var m map[string]any
	if err := json.Unmarshal(line, &m); err != nil {
		return fmt.Errorf("envelope %q is not a JSON object: %w", line, err)
	}
	if _, ok := m["id"]; ok {
		return fmt.Errorf("envelope %s carries an id", line)
	}
	m["id"] = nil
	withID, _ := json.Marshal(m)
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(withID))
	if err != nil {
		return err
	}
	if err := v.responses.Validate(inst); err != nil {
		return fmt.Errorf("envelope %s: %w", line, err)
	}
	ok, _ := m["ok"].(bool)
	if !ok {
		if _, has := m["error"]; !has {
			return fmt.Errorf("envelope %s: ok:false without error", line)
		}
		return nil
	}
	res, has := m["result"]
	if !has {
		return fmt.Errorf("envelope %s: ok:true without result", line)
	}
	b, _ := json.Marshal(res)
	return v.Result(method, b)
}

// ValidatingDial returns a Dial func for socketapi.Client whose connections validate
// every frame the server sends against the schema, reporting failures on tb.
func ValidatingDial(tb testing.TB) func(ctx context.Context, network, addr string) (net.Conn, error) {
	v, err := SchemaValidator()
	if err != nil {
		tb.Fatalf("schema validator: %v", err)
	}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		var d net.Dialer
		c, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return NewValidatingConn(tb, v, c), nil
	}
}

// ValidatingConn wraps a client connection: requests written through it are remembered
// by id, and every frame read back is validated.
type ValidatingConn struct {
	net.Conn
	tb      testing.TB
	v       *Validator
	mu      sync.Mutex
	methods map[string]string // request id JSON → method
	wbuf    []byte
	rbuf    []byte
}

// NewValidatingConn wraps c.
func NewValidatingConn(tb testing.TB, v *Validator, c net.Conn) *ValidatingConn {
	return &ValidatingConn{Conn: c, tb: tb, v: v, methods: map[string]string{}}
}

func (c *ValidatingConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	c.wbuf = append(c.wbuf, p...)
	for {
		i := bytes.IndexByte(c.wbuf, '\n')
		if i < 0 {
			break
		}
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(c.wbuf[:i], &req) == nil && len(req.ID) > 0 {
			c.methods[string(compact(req.ID))] = req.Method
		}
		c.wbuf = c.wbuf[i+1:]
	}
	c.mu.Unlock()
	return c.Conn.Write(p)
}

func (c *ValidatingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.mu.Lock()
	c.rbuf = append(c.rbuf, p[:n]...)
	for {
		i := bytes.IndexByte(c.rbuf, '\n')
		if i < 0 {
			break
		}
		frame := append([]byte(nil), c.rbuf[:i]...)
		c.rbuf = c.rbuf[i+1:]
		var id struct {
			ID json.RawMessage `json:"id"`
		}
		json.Unmarshal(frame, &id)
		method := c.methods[string(compact(id.ID))]
		if verr := c.v.Frame(frame, method); verr != nil {
			c.tb.Errorf("schema validation: %v", verr)
		}
	}
	c.mu.Unlock()
	return n, err
}

func compact(b []byte) []byte {
	var buf bytes.Buffer
	if json.Compact(&buf, b) != nil {
		return b
	}
	return buf.Bytes()
}
