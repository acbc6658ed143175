package configs

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/internal/secret"
)

var (
	durationType = reflect.TypeFor[Duration]()
	decimalType  = reflect.TypeFor[decimal.Decimal]()
	secretType   = reflect.TypeFor[secret.Value]()
)

// decodeValue converts one raw value of a source to the Go type t. Raw
// values are what the TOML parser produces (string, int64, float64, bool,
// []any, map[string]any, dates) or, from the environment and flags, strings.
// A string is accepted for every type and parsed as text, so the same value
// can come from any source. Errors never quote a secret's value.
func decodeValue(t reflect.Type, raw any) (reflect.Value, error) {
	switch t {
	case durationType:
		s, ok := raw.(string)
		if !ok {
			return reflect.Value{}, fmt.Errorf("want a duration string such as \"250ms\", got %s", describe(raw))
		}
		var d Duration
		if err := d.UnmarshalText([]byte(strings.TrimSpace(s))); err != nil {
			return reflect.Value{}, err
		}
		return reflect.ValueOf(d), nil
	case decimalType:
		return decodeDecimal(raw)
	case secretType:
		s, ok := raw.(string)
		if !ok {
			return reflect.Value{}, fmt.Errorf("want a string, got a %s", kindName(raw))
		}
		return reflect.ValueOf(secret.New(s)), nil
	}
	switch t.Kind() {
	case reflect.String:
		s, ok := raw.(string)
		if !ok {
			return reflect.Value{}, fmt.Errorf("want a string, got %s", describe(raw))
		}
		return reflect.ValueOf(s).Convert(t), nil
	case reflect.Bool:
		switch v := raw.(type) {
		case bool:
			return reflect.ValueOf(v), nil
		case string:
			b, err := strconv.ParseBool(strings.TrimSpace(v))
			if err != nil {
				return reflect.Value{}, fmt.Errorf("want true or false, got %s", quote(v))
			}
			return reflect.ValueOf(b), nil
		}
		return reflect.Value{}, fmt.Errorf("want true or false, got %s", describe(raw))
	case reflect.Int, reflect.Int64:
		return decodeInt(t, raw)
	case reflect.Float64:
		return decodeFloat(raw)
	case reflect.Slice:
		return decodeSlice(t, raw)
	}
	return reflect.Value{}, fmt.Errorf("unsupported config type %s", t)
}

func decodeDecimal(raw any) (reflect.Value, error) {
	switch v := raw.(type) {
	case string:
		d, err := decimal.NewFromString(strings.TrimSpace(v))
		if err != nil {
			return reflect.Value{}, fmt.Errorf("invalid decimal %s (want e.g. \"0.05\")", quote(v))
		}
		return reflect.ValueOf(d), nil
	case int64:
		return reflect.ValueOf(decimal.NewFromInt(v)), nil
	case float64:
		return reflect.Value{}, fmt.Errorf("write decimal values as strings, e.g. \"%v\": a TOML float is not exact", v)
	}
	return reflect.Value{}, fmt.Errorf("want a decimal string such as \"0.05\", got %s", describe(raw))
}

func decodeInt(t reflect.Type, raw any) (reflect.Value, error) {
	var n int64
	switch v := raw.(type) {
	case int64:
		n = v
	case string:
		p, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil {
			return reflect.Value{}, fmt.Errorf("want an integer, got %s", quote(v))
		}
		n = p
	default:
		return reflect.Value{}, fmt.Errorf("want an integer, got %s", describe(raw))
	}
	if t.Kind() == reflect.Int && (n > math.MaxInt || n < math.MinInt) {
		return reflect.Value{}, fmt.Errorf("integer %d out of range", n)
	}
	return reflect.ValueOf(n).Convert(t), nil
}

func decodeFloat(raw any) (reflect.Value, error) {
	switch v := raw.(type) {
	case float64:
		return reflect.ValueOf(v), nil
	case int64:
		return reflect.ValueOf(float64(v)), nil
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil {
			return reflect.Value{}, fmt.Errorf("want a number, got %s", quote(v))
		}
		return reflect.ValueOf(f), nil
	}
	return reflect.Value{}, fmt.Errorf("want a number, got %s", describe(raw))
}

// decodeSlice decodes an array. From text, "[ ... ]" is parsed as a TOML
// array (the only way to write an array of tables in the environment or
// --set); otherwise a string is a comma-separated list of strings.
func decodeSlice(t reflect.Type, raw any) (reflect.Value, error) {
	if s, ok := raw.(string); ok {
		s = strings.TrimSpace(s)
		if strings.HasPrefix(s, "[") {
			var m map[string]any
			if err := toml.Unmarshal([]byte("v = "+s), &m); err != nil {
				return reflect.Value{}, fmt.Errorf("invalid TOML array: %w", err)
			}
			raw = m["v"]
		} else if t.Elem().Kind() == reflect.String {
			items := []any{}
			for part := range strings.SplitSeq(s, ",") {
				if part = strings.TrimSpace(part); part != "" {
					items = append(items, part)
				}
			}
			raw = items
		}
	}
	items, ok := raw.([]any)
	if !ok {
		return reflect.Value{}, fmt.Errorf("want an array, got %s", describe(raw))
	}
	out := reflect.MakeSlice(t, 0, len(items))
	for i, item := range items {
		var v reflect.Value
		var err error
		if isSection(t.Elem()) {
			v, err = decodeTable(t.Elem(), item)
		} else {
			v, err = decodeValue(t.Elem(), item)
		}
		if err != nil {
			return reflect.Value{}, fmt.Errorf("item %d: %w", i, err)
		}
		out = reflect.Append(out, v)
	}
	return out, nil
}

// errUnknownField marks a key inside an array-of-tables item that the item's
// type does not have.
var errUnknownField = errors.New("unknown key")

// decodeTable decodes one table of an array of tables into a struct of type t.
func decodeTable(t reflect.Type, raw any) (reflect.Value, error) {
	m, ok := raw.(map[string]any)
	if !ok {
		return reflect.Value{}, fmt.Errorf("want a table, got %s", describe(raw))
	}
	fields := fieldsOf(t)
	out := reflect.New(t).Elem()
	for _, k := range sortedKeys(m) {
		i, ok := fields[k]
		if !ok {
			return reflect.Value{}, fmt.Errorf("%w %s", errUnknownField, quote(k))
		}
		v, err := decodeValue(t.Field(i).Type, m[k])
		if err != nil {
			return reflect.Value{}, fmt.Errorf("%s: %w", k, err)
		}
		out.Field(i).Set(v)
	}
	return out, nil
}

// describe names a raw value's kind and, for scalars, the value itself.
func describe(raw any) string {
	switch v := raw.(type) {
	case string:
		return "the string " + quote(v)
	case int64, float64, bool:
		return fmt.Sprintf("the %s %v", kindName(raw), v)
	}
	return "a " + kindName(raw)
}

func kindName(raw any) string {
	switch raw.(type) {
	case string:
		return "string"
	case int64:
		return "integer"
	case float64:
		return "float"
	case bool:
		return "boolean"
	case []any:
		return "array"
	case map[string]any:
		return "table"
	case nil:
		return "nothing"
	}
	return fmt.Sprintf("%T", raw)
}
