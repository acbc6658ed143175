package exchange

import (
	"encoding/json"
	"fmt"
)

// A catalog market's outcomes and clobTokenIds are, as the spec types them,
// strings whose content it does not show: the live catalog sends each
// either as a JSON-encoded array in a string ("[\"1\",\"2\"]") or as a plain
// JSON array (["1","2"]). Both decode; the market keeps the string form,
// which is what it encodes (docs/protocol.md, Live shapes).

// UnmarshalJSON reads a catalog market with outcomes and clobTokenIds in
// either form. An array whose items are not strings, or a value that is
// neither a string nor an array, is a *FieldError.
func (m *CatalogMarket) UnmarshalJSON(b []byte) error {
	type plain CatalogMarket // the fields as they are, without this method
	var w struct {
		plain
		Outcomes     json.RawMessage `json:"outcomes"`
		ClobTokenIDs json.RawMessage `json:"clobTokenIds"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	out := CatalogMarket(w.plain)
	obj := "catalog market " + clip([]byte(out.ID), 80)
	var err error
	if out.OutcomesJSON, err = stringArrayField(obj, "outcomes", w.Outcomes); err != nil {
		return err
	}
	if out.ClobTokenIDsJSON, err = stringArrayField(obj, "clobTokenIds", w.ClobTokenIDs); err != nil {
		return err
	}
	*m = out
	return nil
}

// stringArrayField returns the string form of a member that is a string
// (kept as it came) or a JSON array of strings (encoded as a string). Absent
// and null give "".
func stringArrayField(object, field string, raw json.RawMessage) (string, error) {
	if isNull(raw) {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var ss []string
	if err := json.Unmarshal(raw, &ss); err != nil {
		return "", &FieldError{Object: object, Field: field, Reason: fmt.Sprintf("%s is neither a string nor a JSON array of strings", clip(raw, 60))}
	}
	return EncodeStringArray(ss), nil
}
