package configs

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/knadh/koanf/parsers/toml/v2"
	"github.com/knadh/koanf/providers/confmap"
	"github.com/knadh/koanf/providers/file"
	"github.com/knadh/koanf/providers/posflag"
	"github.com/knadh/koanf/providers/rawbytes"
	"github.com/knadh/koanf/v2"
	gotoml "github.com/pelletier/go-toml/v2"
	"github.com/spf13/pflag"
)

// LoadOptions says where Load reads from.
type LoadOptions struct {
	// File is the TOML file. Empty: the value of the --config flag in
	// Flags, if set; otherwise no file is read.
	File string
	// Environ holds "NAME=value" entries as os.Environ returns them. Only
	// names starting with MMBOT_ are read. Nil: no environment.
	Environ []string
	// Flags is a parsed flag set on which RegisterFlags was called. Nil:
	// no flags.
	Flags *pflag.FlagSet
	// SkipValidate decodes the layers (unknown keys and values that do not
	// decode are still errors) but does not run Config.Validate: for a
	// command that reads a few keys of a configuration written for
	// `mmbot run` (mmbot status reads metrics.*) and checks those itself.
	SkipValidate bool
}

// Flag names that RegisterFlags defines.
const (
	FlagConfig    = "config"
	FlagSet       = "set"
	FlagLogLevel  = "log-level"
	FlagLogFormat = "log-format"
	FlagStatePath = "state-path"
)

// namedFlags maps the flags that stand for one key to that key.
var namedFlags = map[string]string{
	FlagLogLevel:  "log.level",
	FlagLogFormat: "log.format",
	FlagStatePath: "state.path",
}

// RegisterFlags defines the configuration flags on fs: -c/--config,
// --set key=value (repeatable, any key), --log-level, --log-format and
// --state-path. --dry-run and other mode flags belong to the commands.
func RegisterFlags(fs *pflag.FlagSet) {
	fs.StringP(FlagConfig, "c", "", "TOML config `file`")
	fs.StringArray(FlagSet, nil, "set any config key, e.g. --set strategy.cycle=2s (repeatable; wins over file and environment)")
	fs.String(FlagLogLevel, "", "log level: trace|debug|info|warn|error (log.level)")
	fs.String(FlagLogFormat, "", "log format: auto|json|console (log.format)")
	fs.String(FlagStatePath, "", "state journal `path` (state.path)")
}

// Load builds the configuration from Defaults(), the file, the environment
// and the flags (later sources win), then validates it. Key errors from all
// sources are reported together (each a *KeyError); a file that is not TOML
// is a *SyntaxError; a configuration that decodes but breaks a rule is a
// *ValidationError listing every problem.
func Load(opts LoadOptions) (*Config, error) {
	cfg, _, err := readSources(opts)
	if err != nil {
		return nil, err
	}
	if opts.SkipValidate {
		return cfg, nil
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return cfg, nil
}

// LoadWithSources loads as Load does and also returns every key's
// effective value and the source that set it (see Setting), in declaration
// order. Unlike Load it returns the decoded configuration and its settings
// when they break a rule: err is then the *ValidationError that Load
// returns. When a source cannot be read or holds a key error, the
// configuration and the settings are nil and err is what Load returns.
func LoadWithSources(opts LoadOptions) (*Config, []Setting, error) {
	cfg, sources, err := readSources(opts)
	if err != nil {
		return nil, nil, err
	}
	return cfg, cfg.settings(sources), cfg.Validate()
}

// readSources reads the file that opts names, if any, and merges it with
// the other sources onto Defaults(); it does not validate.
func readSources(opts LoadOptions) (*Config, map[string]Source, error) {
	path := opts.File
	if path == "" && opts.Flags != nil {
		if f := opts.Flags.Lookup(FlagConfig); f != nil && f.Changed {
			path = f.Value.String()
		}
	}
	if path == "" {
		return load("", nil, opts)
	}
	b, err := file.Provider(path).ReadBytes()
	if err != nil {
		return nil, nil, fmt.Errorf("config file %s: %w", path, err)
	}
	return parseAndLoad(path, b, opts)
}

// parseAndLoad is readSources with the file's contents given; name stands
// for its path in messages.
func parseAndLoad(name string, b []byte, opts LoadOptions) (*Config, map[string]Source, error) {
	k := koanf.New(".")
	if err := k.Load(rawbytes.Provider(b), toml.Parser()); err != nil {
		return nil, nil, syntaxError(name, b, err)
	}
	return load(name, k, opts)
}

// loadBytes is Load with the file's contents given; name stands for its path
// in messages.
func loadBytes(name string, b []byte, opts LoadOptions) (*Config, error) {
	cfg, _, err := parseAndLoad(name, b, opts)
	if err != nil {
		return nil, err
	}
	if opts.SkipValidate {
		return cfg, nil
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return cfg, nil
}

// syntaxError places a TOML error in the file. The parser gives a position
// for most errors; for the rest (a table or key defined twice) the line is
// the first line naming that table or key at which the document's prefix
// fails the same way.
func syntaxError(path string, b []byte, err error) error {
	var de *gotoml.DecodeError
	if errors.As(err, &de) {
		line, col := de.Position()
		return &SyntaxError{File: path, Line: line, Column: col, Err: err}
	}
	msg := err.Error()
	name := ""
	for _, intro := range []string{"table ", "key "} {
		if _, rest, ok := strings.Cut(msg, intro); ok {
			name, _, _ = strings.Cut(rest, " ")
			break
		}
	}
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		name = name[i+1:]
	}
	if name == "" {
		return &SyntaxError{File: path, Err: err}
	}
	end := 0
	for i, line := range bytes.SplitAfter(b, []byte("\n")) {
		end += len(line)
		if !bytes.Contains(line, []byte(name)) {
			continue
		}
		var m map[string]any
		if e := gotoml.Unmarshal(b[:end], &m); e != nil && e.Error() == msg {
			return &SyntaxError{File: path, Line: i + 1, Err: err}
		}
	}
	return &SyntaxError{File: path, Err: err}
}

// load merges the layers and decodes them onto Defaults(); it does not
// validate. It returns the source of every key that a layer set (the last
// layer that set it).
func load(path string, fileLayer *koanf.Koanf, opts LoadOptions) (*Config, map[string]Source, error) {
	s := newSchema()
	merged := koanf.New(".")
	sources := map[string]Source{}
	var errs []error
	add := func(k *koanf.Koanf, source func(key string) Source) error {
		errs = append(errs, s.check(k, source)...)
		for key := range k.All() {
			if s.leaves[key] != nil {
				sources[key] = source(key)
			}
		}
		return merged.Merge(k)
	}

	if fileLayer != nil {
		if err := add(fileLayer, func(string) Source { return Source{Kind: SourceFile, Name: path} }); err != nil {
			return nil, nil, err
		}
	}

	ek, vars, envUnknown, envErrs := envLayer(s, opts.Environ)
	errs = append(errs, envErrs...)
	if err := add(ek, func(key string) Source { return Source{Kind: SourceEnv, Name: vars[key]} }); err != nil {
		return nil, nil, err
	}

	if opts.Flags != nil {
		fk := koanf.New(".")
		err := fk.Load(posflag.ProviderWithFlag(opts.Flags, ".", nil, func(f *pflag.Flag) (string, any) {
			return namedFlags[f.Name], f.Value.String()
		}), nil)
		if err != nil {
			return nil, nil, fmt.Errorf("reading flags: %w", err)
		}
		keyFlag := map[string]string{}
		for name, key := range namedFlags {
			keyFlag[key] = name
		}
		if err := add(fk, func(key string) Source { return Source{Kind: SourceFlag, Name: "--" + keyFlag[key]} }); err != nil {
			return nil, nil, err
		}
		sets, _ := opts.Flags.GetStringArray(FlagSet)
		for _, kv := range sets {
			key, val, ok := strings.Cut(kv, "=")
			key = strings.TrimSpace(key)
			if !ok || key == "" {
				errs = append(errs, fmt.Errorf("flag --set %s: want key=value", quote(kv)))
				continue
			}
			sk := koanf.New(".")
			if err := sk.Load(confmap.Provider(map[string]any{key: val}, "."), nil); err != nil {
				return nil, nil, fmt.Errorf("flag --set %s: %w", quoteKey(key), err)
			}
			if err := add(sk, func(string) Source { return Source{Kind: SourceFlag, Name: "--" + FlagSet} }); err != nil {
				return nil, nil, err
			}
		}
	}
	// Decode every value that decoded in its layer (the others are in errs
	// already), so that the secret sources below are known in any case.
	cfg := Defaults()
	root := reflect.ValueOf(&cfg).Elem()
	all := merged.All()
	for _, key := range sortedKeys(all) {
		if l := s.leaves[key]; l != nil {
			if v, err := decodeValue(l.typ, all[key]); err == nil {
				root.FieldByIndex(l.index).Set(v)
			}
		}
	}

	// A variable under MMBOT_ that is no key is an error, unless it is a
	// secret source: one the configuration names, or a default name.
	secretVars := map[string]bool{}
	for _, n := range append(Defaults().Account.secretEnvNames(), cfg.Account.secretEnvNames()...) {
		secretVars[n] = true
	}
	for _, name := range envUnknown {
		if !secretVars[name] {
			key := strings.ToLower(strings.TrimPrefix(name, envPrefix))
			errs = append(errs, &KeyError{Source: "env " + name, Key: key, Err: unknownErr(s, strings.ReplaceAll(key, "__", "."))})
		}
	}
	if len(errs) > 0 {
		return nil, nil, errors.Join(errs...)
	}
	return &cfg, sources, nil
}

// check reports every key of one layer that is unknown or whose value does
// not decode; source names where a key came from.
func (s *schema) check(k *koanf.Koanf, source func(key string) Source) []error {
	var errs []error
	seen := map[string]bool{}
	all := k.All()
	for _, key := range sortedKeys(all) {
		raw := all[key]
		switch {
		case s.leaves[key] != nil:
			if _, err := decodeValue(s.leaves[key].typ, raw); err != nil {
				errs = append(errs, &KeyError{Source: source(key).String(), Key: key, Err: err})
			}
		case s.sections[key]:
			if m, ok := raw.(map[string]any); !ok || len(m) != 0 {
				errs = append(errs, &KeyError{Source: source(key).String(), Key: key, Err: fmt.Errorf("is a table of keys, got %s", describe(raw))})
			}
		default:
			if p := s.leafPrefix(key); p != "" {
				if !seen[p] {
					seen[p] = true
					errs = append(errs, &KeyError{Source: source(key).String(), Key: p, Err: fmt.Errorf("is a single value, got a table")})
				}
				continue
			}
			errs = append(errs, &KeyError{Source: source(key).String(), Key: key, Err: unknownErr(s, key)})
		}
	}
	return errs
}

// leafPrefix returns the leaf key that key is nested under, if any.
func (s *schema) leafPrefix(key string) string {
	for i := strings.LastIndexByte(key, '.'); i > 0; i = strings.LastIndexByte(key[:i], '.') {
		if s.leaves[key[:i]] != nil {
			return key[:i]
		}
	}
	return ""
}

func unknownErr(s *schema, key string) error {
	if near := s.suggest(key); near != "" {
		return fmt.Errorf("%w (did you mean %q?)", ErrUnknownKey, near)
	}
	return ErrUnknownKey
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
