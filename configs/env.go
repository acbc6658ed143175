package configs

import (
	"fmt"
	"sort"
	"strings"

	"github.com/knadh/koanf/providers/env/v2"
	"github.com/knadh/koanf/v2"
)

// envPrefix starts every environment variable that Load reads.
const envPrefix = "MMBOT_"

// EnvName returns the environment variable that sets key:
// "exchange.clob_url" → "MMBOT_EXCHANGE_CLOB_URL". Load also accepts the
// form with a double underscore between levels, MMBOT_EXCHANGE__CLOB_URL.
func EnvName(key string) string {
	return envPrefix + strings.ToUpper(strings.ReplaceAll(key, ".", "_"))
}

// envKey maps a variable name to its key. After the prefix, the name is
// lower-cased; if it contains "__", each "__" is a level separator and "_"
// stays; otherwise the name is looked up among all keys with "." written as
// "_" (a test proves that this spelling is unambiguous for every key).
func (s *schema) envKey(name string) (string, bool) {
	rest := strings.ToLower(strings.TrimPrefix(name, envPrefix))
	if strings.Contains(rest, "__") {
		key := strings.ReplaceAll(rest, "__", ".")
		return key, s.leaves[key] != nil
	}
	key, ok := s.flat[rest]
	return key, ok
}

// envLayer reads the MMBOT_ variables of environ. It returns the layer,
// the variable each key came from, the variables that are no key (Load
// decides after decoding whether they name secret sources) and errors for
// two variables setting the same key.
func envLayer(s *schema, environ []string) (*koanf.Koanf, map[string]string, []string, []error) {
	vars := map[string]string{}
	var unknown []string
	var errs []error
	k := koanf.New(".")
	p := env.Provider(".", env.Opt{
		Prefix:      envPrefix,
		EnvironFunc: func() []string { return environ },
		TransformFunc: func(name, value string) (string, any) {
			key, ok := s.envKey(name)
			if !ok {
				unknown = append(unknown, name)
				return "", nil
			}
			if prev, dup := vars[key]; dup && prev != name {
				a, b := sortPair(prev, name)
				errs = append(errs, &KeyError{Source: "env " + a + " and " + b, Key: key, Err: fmt.Errorf("set by two variables")})
			}
			vars[key] = name
			return key, value
		},
	})
	// The env provider's Read does not fail.
	_ = k.Load(p, nil)
	sort.Strings(unknown)
	return k, vars, unknown, errs
}

func sortPair(a, b string) (string, string) {
	if a > b {
		return b, a
	}
	return a, b
}
