package configs

import (
	"errors"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// loadSources is LoadWithSources on a file holding content, the
// environment env and the command line args; it returns the settings by key.
func loadSources(t *testing.T, content string, env []string, args ...string) (*Config, map[string]Setting, string, error) {
	t.Helper()
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	RegisterFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	path := writeFile(t, content)
	cfg, settings, err := LoadWithSources(LoadOptions{File: path, Environ: env, Flags: fs})
	if settings == nil {
		return cfg, nil, path, err
	}
	byKey := map[string]Setting{}
	for _, s := range settings {
		byKey[s.Key] = s
	}
	return cfg, byKey, path, err
}

// Every key's setting names the last source that set it, and its value is
// the effective one.
func TestLoadWithSourcesNamesTheSource(t *testing.T) {
	file := minimal + `
[log]
level = "warn"
format = "json"
[strategy]
cycle = "2s"
[strategy.bands]
levels = [{ offset = "0.02", size = "5" }]
[exchange.limits]
clob_books = { requests = 40, window = "10s" }
[state]
path = "file.db"
`
	env := []string{
		"MMBOT_LOG_LEVEL=error",
		"MMBOT_STRATEGY__CYCLE=3s",
		"MMBOT_SIM_SEED=11",
		"MMBOT_EXCHANGE_LIMITS_CLOB_BOOKS_WINDOW=20s",
	}
	cfg, got, path, err := loadSources(t, file, env, "--log-level", "debug", "--set", "sim.seed=13", "--set", "risk.cooldown=5s")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Log.Level != "debug" || cfg.Sim.Seed != 13 {
		t.Fatalf("config: log.level %q, sim.seed %d", cfg.Log.Level, cfg.Sim.Seed)
	}
	for _, c := range []struct{ key, value, source string }{
		{"log.level", `"debug"`, "flag --log-level"},
		{"log.format", `"json"`, "file " + path},
		{"strategy.cycle", `"3s"`, "env MMBOT_STRATEGY__CYCLE"},
		{"strategy.bands.levels", `[{offset = "0.02", size = "5"}]`, "file " + path},
		{"exchange.limits.clob_books.requests", "40", "file " + path},
		{"exchange.limits.clob_books.window", `"20s"`, "env MMBOT_EXCHANGE_LIMITS_CLOB_BOOKS_WINDOW"},
		{"sim.seed", "13", "flag --set"},
		{"risk.cooldown", `"5s"`, "flag --set"},
		{"state.path", `"file.db"`, "file " + path},
		{"exchange.embedded_sim", "true", "file " + path},
		{"exchange.max_batch", "15", "default"},
		{"risk.max_position", `"500"`, "default"},
		{"exchange.clob_url", `""`, "default"},
	} {
		s, ok := got[c.key]
		if !ok {
			t.Errorf("%s: no setting", c.key)
			continue
		}
		if s.Value != c.value || s.Source.String() != c.source {
			t.Errorf("%s = %s (%s), want %s (%s)", c.key, s.Value, s.Source, c.value, c.source)
		}
	}
	// One setting per key, in declaration order.
	keys := Keys()
	if len(got) != len(keys) {
		t.Errorf("%d settings for %d keys", len(got), len(keys))
	}
	if got["sim.seed"].Source.Kind != SourceFlag || got["exchange.max_batch"].Source.Kind != SourceDefault {
		t.Errorf("kinds: %+v %+v", got["sim.seed"].Source, got["exchange.max_batch"].Source)
	}
}

// A secret set through the environment is listed as [redacted], and so is a
// URL's password; the values appear nowhere in the settings.
func TestLoadWithSourcesRedacts(t *testing.T) {
	const apiKey = "8c1f7a52-3b9e-4d1a-9f0e-2a6b5c4d3e21"
	env := []string{
		"MMBOT_ACCOUNT_API_KEY=" + apiKey,
		"MMBOT_EXCHANGE_EMBEDDED_SIM=false",
		"MMBOT_EXCHANGE_CLOB_URL=https://bob:hunter2@clob.example/clob",
		"MMBOT_EXCHANGE_DATA_URL=https://data.example/data",
		"MMBOT_EXCHANGE_CATALOG_URL=https://catalog.example/catalog",
	}
	_, got, _, err := loadSources(t, minimal, env)
	if err != nil {
		t.Fatal(err)
	}
	if s := got["account.api_key"]; s.Value != "[redacted]" || s.Source.String() != "env MMBOT_ACCOUNT_API_KEY" {
		t.Errorf("account.api_key = %s (%s)", s.Value, s.Source)
	}
	if s := got["exchange.clob_url"]; s.Value != `"https://bob:xxxxx@clob.example/clob"` {
		t.Errorf("exchange.clob_url = %s", s.Value)
	}
	for _, s := range got {
		if strings.Contains(s.Value, apiKey) || strings.Contains(s.Value, "hunter2") {
			t.Errorf("%s = %s shows a secret", s.Key, s.Value)
		}
	}
}

// A configuration that breaks rules still comes back with its settings,
// with the *ValidationError that Load returns; one that has key errors
// does not.
func TestLoadWithSourcesErrors(t *testing.T) {
	bad := "[exchange]\nembedded_sim = true\nmax_batch = 99\n[risk]\nmax_position = \"-5\"\n"
	cfg, got, _, err := loadSources(t, bad, []string{"MMBOT_LOG_LEVEL=loud"})
	var ve *ValidationError
	if !errors.As(err, &ve) || cfg == nil || got == nil {
		t.Fatalf("cfg %v, %d settings, err %v: want a config, settings and a *ValidationError", cfg != nil, len(got), err)
	}
	if len(ve.Problems) != 3 {
		t.Errorf("problems %v, want 3", ve.Problems)
	}
	if s := got["log.level"]; s.Value != `"loud"` || s.Source.String() != "env MMBOT_LOG_LEVEL" {
		t.Errorf("log.level = %s (%s)", s.Value, s.Source)
	}
	_, loadErr := loadWith(t, bad, []string{"MMBOT_LOG_LEVEL=loud"})
	if loadErr == nil || loadErr.Error() != err.Error() {
		t.Errorf("Load: %v\nLoadWithSources: %v", loadErr, err)
	}

	cfg, got, _, err = loadSources(t, minimal+"[log]\nlevl = \"x\"\n", nil)
	var ke *KeyError
	if !errors.As(err, &ke) || cfg != nil || got != nil {
		t.Fatalf("cfg %v, settings %v, err %v: want only a *KeyError", cfg, got, err)
	}
}
