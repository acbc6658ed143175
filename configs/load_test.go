package configs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

// minimal is the smallest file that validates.
const minimal = `
[exchange]
embedded_sim = true
[markets.auto]
enabled = true
`

func writeFile(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "mmbot.toml")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// loadWith loads a file holding content (none if empty), the environment
// env and the command line args.
func loadWith(t *testing.T, content string, env []string, args ...string) (*Config, error) {
	t.Helper()
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	RegisterFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	opts := LoadOptions{Environ: env, Flags: fs}
	if content != "" {
		opts.File = writeFile(t, content)
	}
	return Load(opts)
}

func TestPrecedence(t *testing.T) {
	file := minimal + `
[log]
level = "warn"
[strategy]
cycle = "2s"
[risk]
cooldown = "3s"
[state]
path = "file.db"
`
	env := []string{
		"PATH=/usr/bin",
		"MMBOT_LOG_LEVEL=error",
		"MMBOT_STRATEGY__CYCLE=3s",
		"MMBOT_EXCHANGE_MAX_BATCH=7",
		"MMBOT_SIM_SEED=11",
		"NOEQUALS",
	}
	c, err := loadWith(t, file, env,
		"--log-level", "debug",
		"--state-path", "flag.db",
		"--set", "strategy.cycle=4s",
		"--set", "sim.seed=12",
		"--set", "sim.seed=13",
		"--set", "log.level=trace")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		key       string
		got, want any
	}{
		{"risk.cooldown (file)", c.Risk.Cooldown, Duration(3 * time.Second)},
		{"exchange.max_batch (env)", c.Exchange.MaxBatch, 7},
		{"state.path (flag over file)", c.State.Path, "flag.db"},
		{"strategy.cycle (--set over env over file)", c.Strategy.Cycle, Duration(4 * time.Second)},
		{"sim.seed (last --set wins)", c.Sim.Seed, int64(13)},
		{"log.level (--set over named flag over env over file)", c.Log.Level, "trace"},
		{"log.format (default)", c.Log.Format, "auto"},
	} {
		if tc.got != tc.want {
			t.Errorf("%s = %v, want %v", tc.key, tc.got, tc.want)
		}
	}

	// Without flags and environment the file wins over defaults.
	c, err = loadWith(t, file, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Log.Level != "warn" || c.Strategy.Cycle != Duration(2*time.Second) || c.Exchange.MaxBatch != 15 {
		t.Errorf("file only: level %s cycle %s batch %d", c.Log.Level, c.Strategy.Cycle, c.Exchange.MaxBatch)
	}
}

func TestConfigFlag(t *testing.T) {
	p := writeFile(t, minimal+"[sim]\nseed = 99\n")
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	RegisterFlags(fs)
	if err := fs.Parse([]string{"-c", p}); err != nil {
		t.Fatal(err)
	}
	c, err := Load(LoadOptions{Flags: fs})
	if err != nil {
		t.Fatal(err)
	}
	if c.Sim.Seed != 99 {
		t.Fatalf("seed %d: -c file not read", c.Sim.Seed)
	}
	// A flag set without our flags is fine.
	other := pflag.NewFlagSet("other", pflag.ContinueOnError)
	other.Bool("dry-run", false, "")
	if _, err := Load(LoadOptions{File: p, Flags: other}); err != nil {
		t.Fatal(err)
	}
}

func TestArraysReplaceAndParse(t *testing.T) {
	file := minimal + `
[strategy.bands]
levels = [{ offset = "0.01", size = "5" }, { offset = "0.02", size = "6" }, { offset = "0.03", size = "7" }]
[markets]
slugs = ["a", "b"]
`
	c, err := loadWith(t, file, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Strategy.Bands.Levels) != 3 || !c.Strategy.Bands.Levels[2].Size.Equal(dec("7")) {
		t.Fatalf("file levels %v", c.Strategy.Bands.Levels)
	}
	c, err = loadWith(t, file, []string{
		`MMBOT_STRATEGY_BANDS_LEVELS=[{offset = "0.05", size = "9"}]`,
		"MMBOT_MARKETS_SLUGS= x-1 , y-2 ,",
		`MMBOT_MARKETS_CONDITION_IDS=["` + goodB32 + `"]`,
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := formatValue(c.Strategy.Bands.Levels); got != `[{offset = "0.05", size = "9"}]` {
		t.Errorf("env levels %s (arrays replace, never merge)", got)
	}
	if got := formatValue(c.Markets.Slugs); got != `["x-1", "y-2"]` {
		t.Errorf("env slugs %s", got)
	}
	if len(c.Markets.ConditionIDs) != 1 || c.Markets.ConditionIDs[0] != goodB32 {
		t.Errorf("env condition ids %v", c.Markets.ConditionIDs)
	}
	c, err = loadWith(t, file, nil, "--set", "markets.auto.tags=", "--set", "risk.max_position=300")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Markets.Auto.Tags) != 0 || !c.Risk.MaxPosition.Equal(dec("300")) {
		t.Errorf("tags %v max_position %s", c.Markets.Auto.Tags, c.Risk.MaxPosition)
	}
}

func TestDecimalAndNumberForms(t *testing.T) {
	c, err := loadWith(t, minimal+`
[risk]
max_position = 300
price_collar = "0.05"
max_error_rate = 1
[exchange.limits]
fill = 0.9
`, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Risk.MaxPosition.Equal(dec("300")) || !c.Risk.PriceCollar.Equal(dec("0.05")) || c.Risk.MaxErrorRate != 1 || c.Exchange.Limits.Fill != 0.9 {
		t.Fatalf("got %s %s %v %v", c.Risk.MaxPosition, c.Risk.PriceCollar, c.Risk.MaxErrorRate, c.Exchange.Limits.Fill)
	}
}

// TestKeyErrors: unknown keys and bad values name the key and the source.
func TestKeyErrors(t *testing.T) {
	for _, tc := range []struct {
		name    string
		file    string
		env     []string
		args    []string
		source  string // "file" stands for "file <path>"
		key     string
		unknown bool
		msg     []string // more text the message must hold
	}{
		{name: "file unknown section", file: "[exchang]\nclob_url = \"http://x\"\n", source: "file", key: "exchang.clob_url", unknown: true,
			msg: []string{`did you mean "exchange.clob_url"`}},
		{name: "file typo", file: "[exchange]\nclob_ur = \"http://x\"\n", source: "file", key: "exchange.clob_ur", unknown: true,
			msg: []string{`did you mean "exchange.clob_url"`}},
		{name: "file unknown empty table", file: "[nothing]\n", source: "file", key: "nothing", unknown: true},
		{name: "file value is a table", file: "[log.level]\nx = 1\n", source: "file", key: "log.level", msg: []string{"single value"}},
		{name: "file section is a value", file: "exchange = 5\n", source: "file", key: "exchange", msg: []string{"table of keys", "integer 5"}},
		{name: "file band level field", file: "[strategy.bands]\nlevels = [{ offset = \"0.01\", sise = \"2\" }]\n", source: "file",
			key: "strategy.bands.levels", msg: []string{"item 0", `"sise"`}},
		{name: "env unknown", env: []string{"MMBOT_EXCHANGE_CLOB_UR=http://x"}, source: "env MMBOT_EXCHANGE_CLOB_UR", key: "exchange_clob_ur", unknown: true},
		{name: "env unknown levels", env: []string{"MMBOT_EXCHANGE__NOPE=1"}, source: "env MMBOT_EXCHANGE__NOPE", key: "exchange__nope", unknown: true,
			msg: []string{"not a configuration key"}},
		{name: "set unknown", args: []string{"--set", "strategy.modle=bands"}, source: "flag --set", key: "strategy.modle", unknown: true,
			msg: []string{`did you mean "strategy.model"`}},
		{name: "file duration", file: "[strategy]\ncycle = \"10x\"\n", source: "file", key: "strategy.cycle", msg: []string{`invalid duration "10x"`}},
		{name: "file duration as number", file: "[strategy]\ncycle = 10\n", source: "file", key: "strategy.cycle", msg: []string{"duration string", "integer 10"}},
		{name: "file decimal as float", file: "[risk]\nmax_position = 10.5\n", source: "file", key: "risk.max_position", msg: []string{"write decimal values as strings", "not exact"}},
		{name: "file decimal bad", file: "[strategy]\norder_size = \"ten\"\n", source: "file", key: "strategy.order_size", msg: []string{`invalid decimal "ten"`}},
		{name: "env decimal bad", env: []string{"MMBOT_RISK_PRICE_COLLAR=1,5"}, source: "env MMBOT_RISK_PRICE_COLLAR", key: "risk.price_collar", msg: []string{`invalid decimal "1,5"`}},
		{name: "env duration bad", env: []string{"MMBOT_STATE__LOCK_TIMEOUT=2"}, source: "env MMBOT_STATE__LOCK_TIMEOUT", key: "state.lock_timeout", msg: []string{`invalid duration "2"`}},
		{name: "env int bad", env: []string{"MMBOT_EXCHANGE_MAX_BATCH=many"}, source: "env MMBOT_EXCHANGE_MAX_BATCH", key: "exchange.max_batch", msg: []string{"want an integer"}},
		{name: "env bool bad", env: []string{"MMBOT_EXCHANGE_EMBEDDED_SIM=maybe"}, source: "env MMBOT_EXCHANGE_EMBEDDED_SIM", key: "exchange.embedded_sim", msg: []string{"true or false"}},
		{name: "env float bad", env: []string{"MMBOT_STRATEGY_GLFT_K=fast"}, source: "env MMBOT_STRATEGY_GLFT_K", key: "strategy.glft.k", msg: []string{"want a number"}},
		{name: "env array bad", env: []string{"MMBOT_STRATEGY_BANDS_LEVELS=[{offset = }]"}, source: "env MMBOT_STRATEGY_BANDS_LEVELS", key: "strategy.bands.levels", msg: []string{"invalid TOML array"}},
		{name: "file string as int", file: "[state]\npath = 5\n", source: "file", key: "state.path", msg: []string{"want a string"}},
		{name: "file int as float", file: "[exchange]\nmax_batch = 1.5\n", source: "file", key: "exchange.max_batch", msg: []string{"want an integer"}},
		{name: "file secret as int", file: "[account]\napi_key = 12345\n", source: "file", key: "account.api_key", msg: []string{"want a string, got a integer"}},
		{name: "flag duration", args: []string{"--set", "risk.cooldown=soon"}, source: "flag --set", key: "risk.cooldown", msg: []string{`invalid duration "soon"`}},
		{name: "named flag", args: []string{"--state-path", "x.db", "--set", "state.lock_timeout=x"}, source: "flag --set", key: "state.lock_timeout"},
		{name: "two env vars for one key", env: []string{"MMBOT_LOG_LEVEL=info", "MMBOT_LOG__LEVEL=debug"}, source: "env MMBOT_LOG_LEVEL and MMBOT_LOG__LEVEL", key: "log.level", msg: []string{"two variables"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Key errors come before validation: the file need not be complete.
			file := tc.file
			fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
			RegisterFlags(fs)
			if err := fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			path := writeFile(t, file)
			_, err := Load(LoadOptions{File: path, Environ: tc.env, Flags: fs})
			if err == nil {
				t.Fatal("no error")
			}
			source := tc.source
			if source == "file" {
				source = "file " + path
			}
			var ke *KeyError
			if !errors.As(err, &ke) {
				t.Fatalf("no *KeyError in %v", err)
			}
			if ke.Source != source || ke.Key != tc.key {
				t.Errorf("KeyError{Source: %q, Key: %q}, want %q, %q", ke.Source, ke.Key, source, tc.key)
			}
			if errors.Is(err, ErrUnknownKey) != tc.unknown {
				t.Errorf("errors.Is(ErrUnknownKey) = %v, want %v", !tc.unknown, tc.unknown)
			}
			msg := err.Error()
			for _, want := range append([]string{source, `"` + tc.key + `"`}, tc.msg...) {
				if !strings.Contains(msg, want) {
					t.Errorf("message %q lacks %q", msg, want)
				}
			}
		})
	}
}

// TestKeyErrorsAllReported: problems in several sources come back together.
func TestKeyErrorsAllReported(t *testing.T) {
	_, err := loadWith(t, minimal+"[log]\nlevl = \"x\"\n[risk]\ncooldown = 3\n", []string{"MMBOT_BOGUS=1"}, "--set", "nope=1", "--set", "novalue")
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	for _, want := range []string{`"log.levl"`, `"risk.cooldown"`, "env MMBOT_BOGUS", `flag --set: key "nope"`, `flag --set "novalue": want key=value`} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
}

func TestSecretVariablesAreNotKeys(t *testing.T) {
	secretEnv := []string{
		"MMBOT_PRIVATE_KEY=0xkey", "MMBOT_API_SECRET=s", "MMBOT_PASSPHRASE=p", "MMBOT_KEYSTORE_PASSWORD=k",
	}
	if _, err := loadWith(t, minimal, secretEnv); err != nil {
		t.Fatalf("default secret variables: %v", err)
	}
	// A variable that the configuration names as a source is not a key either.
	file := minimal + "[account]\nprivate_key_env = \"MMBOT_MY_KEY\"\n"
	if _, err := loadWith(t, file, append(secretEnv, "MMBOT_MY_KEY=0xkey")); err != nil {
		t.Fatalf("configured secret variable: %v", err)
	}
	// ... also when the environment itself renames it.
	if _, err := loadWith(t, minimal, []string{"MMBOT_ACCOUNT_API_SECRET_ENV=MMBOT_OTHER", "MMBOT_OTHER=s"}); err != nil {
		t.Fatalf("secret variable named by the environment: %v", err)
	}
	// And the value never appears in an error.
	_, err := loadWith(t, minimal, []string{"MMBOT_SOMETHING=topsecretvalue"})
	if err == nil || strings.Contains(err.Error(), "topsecretvalue") {
		t.Fatalf("err = %v", err)
	}
}

func TestSyntaxError(t *testing.T) {
	for _, tc := range []struct {
		name, file string
		line       int
	}{
		{"bad token", "[log]\nlevel = \"info\"\nformat = = \"json\"\n", 3},
		{"unterminated string", "[log]\n\nlevel = \"info\n", 3},
		{"table twice", "[log]\nlevel = \"info\"\n\n[state]\n[log]\nformat = \"json\"\n", 5},
		{"key twice", "[log]\nlevel = \"info\"\nlevel = \"warn\"\n", 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := writeFile(t, tc.file)
			_, err := Load(LoadOptions{File: p})
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("want *SyntaxError, got %v", err)
			}
			if se.File != p || se.Line != tc.line {
				t.Errorf("at %s:%d, want %s:%d (%v)", se.File, se.Line, p, tc.line, err)
			}
			if msg, want := err.Error(), fmt.Sprintf("%s:%d:", p, tc.line); !strings.Contains(msg, want) {
				t.Errorf("message %q does not name %s", msg, want)
			}
		})
	}
}

func TestMissingFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "absent.toml")
	_, err := Load(LoadOptions{File: p})
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), p) {
		t.Fatalf("err = %v", err)
	}
}

func TestLoadValidates(t *testing.T) {
	_, err := loadWith(t, minimal, nil, "--set", "exchange.max_batch=20")
	var ve *ValidationError
	if !errors.As(err, &ve) || len(ve.Problems) != 1 || ve.Problems[0].Key != "exchange.max_batch" {
		t.Fatalf("err = %v", err)
	}
	// No file, no markets, no URLs: the defaults alone do not validate.
	_, err = Load(LoadOptions{})
	if !errors.As(err, &ve) {
		t.Fatalf("defaults alone: %v", err)
	}
}

// SkipValidate decodes every layer without the rules: the defaults alone
// load, a layer's value wins as usual, and a key that does not exist or a
// value that does not decode is still an error.
func TestLoadSkipValidate(t *testing.T) {
	cfg, err := Load(LoadOptions{SkipValidate: true, Environ: []string{"MMBOT_METRICS_LISTEN=127.0.0.1:9999"}})
	if err != nil {
		t.Fatalf("defaults without validation: %v", err)
	}
	if cfg.Metrics.Listen != "127.0.0.1:9999" || !cfg.Metrics.Enabled {
		t.Fatalf("metrics %+v, want the environment's listen address", cfg.Metrics)
	}
	if cfg.Validate() == nil {
		t.Fatal("the loaded defaults validate: the test proves nothing")
	}
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	RegisterFlags(fs)
	if err := fs.Parse([]string{"--set", "metrics.nonsense=1"}); err != nil {
		t.Fatal(err)
	}
	var ke *KeyError
	if _, err := Load(LoadOptions{SkipValidate: true, Flags: fs}); !errors.As(err, &ke) {
		t.Fatalf("unknown key without validation: err = %v, want a *KeyError", err)
	}
}

func TestRegisterFlags(t *testing.T) {
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	RegisterFlags(fs)
	for _, name := range []string{FlagConfig, FlagSet, FlagLogLevel, FlagLogFormat, FlagStatePath} {
		if fs.Lookup(name) == nil {
			t.Errorf("flag --%s missing", name)
		}
	}
	if fs.ShorthandLookup("c") == nil {
		t.Error("-c missing")
	}
	if fs.Lookup("dry-run") != nil || fs.Lookup("private-key") != nil {
		t.Error("mode flags and secrets are not config flags")
	}
}
