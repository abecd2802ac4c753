package herdrtest

import "encoding/json"

// decodeNested decodes the nested params object b (a LayoutNode, a
// PaneMoveDestination) into the struct at dst with decodeParams' rules; anything
// but an object is "invalid type: expected <name>". It returns the object's keys,
// for the fields one variant requires (see requireKeys).
func decodeNested(b []byte, dst any, name string) (map[string]json.RawMessage, error) {
	if jsonKind(b) != "object" {
		return nil, &paramsError{msg: "invalid type: expected " + name}
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	if err := decodeFields(m, reflectValue(dst), ""); err != nil {
		return nil, err
	}
	return m, nil
}

// requireKeys fails with a "missing field" params error for the first of keys
// that m lacks: the fields a variant needs beyond those its struct tags require.
func requireKeys(m map[string]json.RawMessage, keys ...string) error {
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			return &paramsError{msg: "missing field `" + k + "`"}
		}
	}
	return nil
}
