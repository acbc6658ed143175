package sim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
)

// Request bodies are parsed exactly, as a real service does: one JSON value
// and nothing after it but whitespace; object keys matched exactly (case
// included) against the fields' json names; no key twice in one object, at
// any depth. encoding/json alone does none of this (it folds case, lets the
// last duplicate win and stops reading after the first value), so
// decodeStrict first walks the body's tokens against the target type, then
// decodes it.
//
// Unknown keys are refused, except inside the struct types given as lenient
// (the order placement item and its order: clients send fields the
// simulator does not use, such as deferExec, postOnly and
// order.expiration). A key that differs from a known one only in case is
// never unknown: it is refused everywhere, since ignoring it would drop a
// value the client meant.

// strictError is a body that is not exactly one well-formed value of the
// expected shape. The handlers answer it 400 "invalid body: ...".
type strictError struct {
	path string // where, e.g. [0].order.salt; "" for the whole body
	msg  string
}

func (e *strictError) Error() string {
	if e.path == "" {
		return e.msg
	}
	return e.path + ": " + e.msg
}

// decodeStrict decodes body into v (a pointer) exactly. Unknown keys are
// ignored inside the struct types in lenient and refused elsewhere.
func decodeStrict(body []byte, v any, lenient ...reflect.Type) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("sim: decodeStrict needs a non-nil pointer, got %T", v)
	}
	w := walker{dec: json.NewDecoder(bytes.NewReader(body)), lenient: lenient, fields: map[reflect.Type]map[string]reflect.Type{}}
	w.dec.UseNumber()
	if err := w.value(rv.Type().Elem(), ""); err != nil {
		return err
	}
	if _, err := w.dec.Token(); err != io.EOF {
		return &strictError{msg: "trailing data after the JSON value"}
	}
	if err := json.Unmarshal(body, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return &strictError{path: te.Field, msg: fmt.Sprintf("cannot be a JSON %s (want %s)", te.Value, te.Type)}
		}
		return &strictError{msg: err.Error()}
	}
	return nil
}

// walker checks the token stream of one body.
type walker struct {
	dec     *json.Decoder
	lenient []reflect.Type
	fields  map[reflect.Type]map[string]reflect.Type // structFields per type
}

// token reads the next token; a syntax error or a premature end is a
// strictError.
func (w *walker) token() (json.Token, error) {
	tok, err := w.dec.Token()
	if err == io.EOF {
		return nil, &strictError{msg: "unexpected end of the body"}
	}
	if err != nil {
		return nil, &strictError{msg: "not JSON: " + err.Error()}
	}
	return tok, nil
}

// value walks one value expected to decode into t (nil: any value, keys
// checked for duplicates only).
func (w *walker) value(t reflect.Type, path string) error {
	tok, err := w.token()
	if err != nil {
		return err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return nil // a scalar: its type is encoding/json's to check
	}
	t = schemaOf(t)
	switch d {
	case '[':
		var elem reflect.Type
		if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
			elem = t.Elem()
		}
		for i := 0; w.dec.More(); i++ {
			if err := w.value(elem, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		_, err = w.token() // ']'
		return err
	case '{':
		return w.object(t, path)
	}
	return &strictError{path: path, msg: fmt.Sprintf("unexpected %q", d)}
}

// object walks the members of an object after its '{'.
func (w *walker) object(t reflect.Type, path string) error {
	var fields map[string]reflect.Type
	var elem reflect.Type
	switch {
	case t != nil && t.Kind() == reflect.Struct:
		if fields = w.fields[t]; fields == nil {
			fields = structFields(t)
			w.fields[t] = fields
		}
	case t != nil && t.Kind() == reflect.Map:
		elem = t.Elem()
	}
	lenient := t != nil && w.isLenient(t)
	seen := map[string]bool{}
	for w.dec.More() {
		tok, err := w.token()
		if err != nil {
			return err
		}
		key, ok := tok.(string)
		if !ok {
			return &strictError{path: path, msg: "object key is not a string"}
		}
		kpath := key
		if path != "" {
			kpath = path + "." + key
		}
		if seen[key] {
			return &strictError{path: kpath, msg: "duplicate key"}
		}
		seen[key] = true
		ft := elem
		if fields != nil {
			var known bool
			if ft, known = fields[key]; !known {
				if want := foldMatch(fields, key); want != "" {
					return &strictError{path: kpath, msg: fmt.Sprintf("unknown field (keys are case-sensitive: want %q)", want)}
				}
				if !lenient {
					return &strictError{path: kpath, msg: "unknown field"}
				}
			}
		}
		if err := w.value(ft, kpath); err != nil {
			return err
		}
	}
	_, err := w.token() // '}'
	return err
}

func (w *walker) isLenient(t reflect.Type) bool {
	for _, l := range w.lenient {
		if l == t {
			return true
		}
	}
	return false
}

// foldMatch returns the known name that key equals but for case ("" if
// none). encoding/json folds names as bytes.EqualFold does.
func foldMatch(fields map[string]reflect.Type, key string) string {
	for name := range fields {
		if strings.EqualFold(name, key) {
			return name
		}
	}
	return ""
}

var jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()

// schemaOf is the type whose shape the walker checks: pointers are
// followed; a type that decodes itself (json.Unmarshaler) or an interface
// has no known shape (nil).
func schemaOf(t reflect.Type) reflect.Type {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() == reflect.Interface || reflect.PointerTo(t).Implements(jsonUnmarshaler) {
		return nil
	}
	return t
}

// structFields maps a struct's json names to the fields' types: exported
// fields, named by their tag (or the Go name), "-" left out, embedded
// structs without a tag flattened.
func structFields(t reflect.Type) map[string]reflect.Type {
	m := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			if et := schemaOf(f.Type); et != nil && et.Kind() == reflect.Struct {
				for k, v := range structFields(et) {
					m[k] = v
				}
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		m[name] = f.Type
	}
	return m
}
