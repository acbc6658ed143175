package configs

import "reflect"

// SourceKind is the kind of source a key's value comes from.
type SourceKind string

// The sources of a value, from the lowest precedence to the highest.
const (
	SourceDefault SourceKind = "default" // Defaults()
	SourceFile    SourceKind = "file"    // the TOML file
	SourceEnv     SourceKind = "env"     // an MMBOT_ variable
	SourceFlag    SourceKind = "flag"    // a named flag or --set
)

// Source names where a key's effective value came from.
type Source struct {
	Kind SourceKind
	// Name is the file's path, the variable's name or the flag
	// ("--log-level", "--set"); empty for a default.
	Name string
}

// String is "default", "file mmbot.toml", "env MMBOT_LOG_LEVEL",
// "flag --log-level" or "flag --set": the words key errors use.
func (s Source) String() string {
	if s.Name == "" {
		return string(s.Kind)
	}
	return string(s.Kind) + " " + s.Name
}

// Setting is one key of a loaded configuration.
type Setting struct {
	Key string
	// Value is written as in TOML ("info", 15, "0.05", ["a", "b"]); a secret
	// as [redacted], a URL's password as xxxxx.
	Value string
	// Source is the last source that set the key (later sources win), or
	// SourceDefault when none did.
	Source Source
}

// settings lists every key of c in declaration order with its source from
// sources (SourceDefault when absent).
func (c *Config) settings(sources map[string]Source) []Setting {
	s := newSchema()
	root := reflect.ValueOf(c).Elem()
	out := make([]Setting, 0, len(s.order))
	for _, key := range s.order {
		src, ok := sources[key]
		if !ok {
			src = Source{Kind: SourceDefault}
		}
		v := root.FieldByIndex(s.leaves[key].index).Interface()
		out = append(out, Setting{Key: key, Value: formatValue(v), Source: src})
	}
	return out
}
