package herdrtest

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// apiError is an error answered as {"id":…,"error":{code,message}}.
type apiError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (e *apiError) Error() string { return e.Code + ": " + e.Message }

func errf(code, format string, args ...any) *apiError {
	return &apiError{Code: code, Message: fmt.Sprintf(format, args...)}
}

// paramsError marks a params deserialisation failure; it is answered like an envelope
// parse failure: invalid_request with id "".
type paramsError struct{ msg string }

func (e *paramsError) Error() string { return e.msg }

type successEnvelope struct {
	ID     string `json:"id"`
	Result any    `json:"result"`
}

type errorEnvelope struct {
	ID    string    `json:"id"`
	Error *apiError `json:"error"`
}

// envelope is a parsed request line.
type envelope struct {
	ID     string
	Method string
	Params json.RawMessage
}

// parseEnvelope decodes one request line the way herdr's serde model does: id must be
// a string, method a known name, params an object; unknown top-level keys are ignored.
func parseEnvelope(line []byte) (envelope, error) {
	var env envelope
	var top map[string]json.RawMessage
	if err := json.Unmarshal(line, &top); err != nil {
		return env, &paramsError{msg: jsonErrText(err)}
	}
	if top == nil {
		return env, &paramsError{msg: "invalid type: null, expected a request object"}
	}
	rawID, ok := top["id"]
	if !ok {
		return env, &paramsError{msg: "missing field `id`"}
	}
	if err := strictString(rawID, &env.ID); err != nil {
		return env, &paramsError{msg: "id: " + err.Error()}
	}
	rawMethod, ok := top["method"]
	if !ok {
		return env, &paramsError{msg: "missing field `method`"}
	}
	if err := strictString(rawMethod, &env.Method); err != nil {
		return env, &paramsError{msg: "method: " + err.Error()}
	}
	if !schemaMethods[env.Method] {
		return env, &paramsError{msg: fmt.Sprintf("unknown variant `%s`", env.Method)}
	}
	params, ok := top["params"]
	if !ok {
		return env, &paramsError{msg: "missing field `params`"}
	}
	if t := jsonKind(params); t != "object" {
		return env, &paramsError{msg: fmt.Sprintf("params: invalid type: %s, expected struct", t)}
	}
	env.Params = params
	return env, nil
}

func strictString(raw json.RawMessage, dst *string) error {
	if k := jsonKind(raw); k != "string" {
		return fmt.Errorf("invalid type: %s, expected a string", k)
	}
	return json.Unmarshal(raw, dst)
}

func jsonKind(raw json.RawMessage) string {
	s := strings.TrimLeft(string(raw), " \t\r\n")
	if s == "" {
		return "nothing"
	}
	switch s[0] {
	case '{':
		return "object"
	case '[':
		return "sequence"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	default:
		return "number"
	}
}

func jsonErrText(err error) string {
	return strings.TrimPrefix(err.Error(), "json: ")
}

// decodeParams fills the struct pointed to by dst from a params object with exact
// (case-sensitive) key matching. Fields tagged `req:"1"` are required. A JSON null is
// accepted only for pointer fields (serde's Option). Unknown keys are ignored.
func decodeParams(raw json.RawMessage, dst any) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return &paramsError{msg: "invalid type: expected struct"}
	}
	return decodeFields(m, reflect.ValueOf(dst).Elem(), "")
}

func decodeFields(m map[string]json.RawMessage, v reflect.Value, prefix string) error {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		val, ok := m[name]
		if !ok {
			if f.Tag.Get("req") == "1" {
				return &paramsError{msg: fmt.Sprintf("missing field `%s%s`", prefix, name)}
			}
			continue
		}
		fv := v.Field(i)
		if jsonKind(val) == "null" {
			if fv.Kind() == reflect.Pointer {
				continue
			}
			return &paramsError{msg: fmt.Sprintf("%s%s: invalid type: null", prefix, name)}
		}
		if err := json.Unmarshal(val, fv.Addr().Interface()); err != nil {
			return &paramsError{msg: fmt.Sprintf("%s%s: %s", prefix, name, jsonErrText(err))}
		}
		if en := f.Tag.Get("enum"); en != "" {
			s := fv
			if s.Kind() == reflect.Pointer {
				s = s.Elem()
			}
			if s.Kind() == reflect.String && !contains(strings.Split(en, "|"), s.String()) {
				return &paramsError{msg: fmt.Sprintf("%s%s: unknown variant `%s`, expected one of %s", prefix, name, s.String(), strings.ReplaceAll(en, "|", ", "))}
			}
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func reflectValue(ptr any) reflect.Value { return reflect.ValueOf(ptr).Elem() }
