package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mmbot/mmbot/configs"
	"github.com/mmbot/mmbot/exchange/sim"
)

// runConfigCheck runs "mmbot config check args" through runMain with the
// environment environ (read by the config and by the secret sources alike)
// and returns the exit status, stdout and stderr.
func runConfigCheck(t *testing.T, environ []string, args ...string) (int, string, string) {
	t.Helper()
	vars := map[string]string{}
	for _, kv := range environ {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	var out, errb bytes.Buffer
	e := &env{ctx: context.Background(), stdin: strings.NewReader(""), stdout: &out, stderr: &errb,
		getenv: func(k string) string { return vars[k] }, environ: environ}
	code := runMain(e, append([]string{"config", "check"}, args...))
	return code, out.String(), errb.String()
}

// settingLine finds the line of key in the listing and returns its value
// and source.
func settingLine(t *testing.T, out, key string) (value, source string) {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(key) + ` +(= .*?) +# (.*)$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no line for %s in:\n%s", key, out)
	}
	return strings.TrimPrefix(m[1], "= "), m[2]
}

// simAccount creates one account on a simulated exchange (not serving) and
// writes it as mmbot sim --creds-out does, with the given URLs.
func simAccount(t *testing.T, path string, urls sim.URLs) sim.AccountCreds {
	t.Helper()
	ex, err := sim.New(sim.Config{Seed: 1, Markets: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ex.Close() })
	return simAccountAt(t, ex, path, urls)
}

// simAccountAt creates a funded account on ex and writes it to path with
// urls, as mmbot sim --creds-out does.
func simAccountAt(t *testing.T, ex *sim.Exchange, path string, urls sim.URLs) sim.AccountCreds {
	t.Helper()
	ac, err := ex.CreateAccount(sim.AccountOptions{Fund: dec("10000")})
	if err != nil {
		t.Fatal(err)
	}
	if err := sim.WriteCredentialsFile(path, sim.NewCredentialsFile(urls, 137, []sim.AccountCreds{ac})); err != nil {
		t.Fatal(err)
	}
	return ac
}

// The demo configuration is good: every key is listed with its source, the
// account is not read (the embedded exchange makes one), exit 0.
func TestConfigCheckDemo(t *testing.T) {
	demo := filepath.Join("..", "..", "configs", "demo.toml")
	code, out, errOut := runConfigCheck(t, nil, "-c", demo)
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d, stderr %q\n%s", code, errOut, out)
	}
	for _, key := range configs.Keys() {
		settingLine(t, out, key)
	}
	for _, c := range []struct{ key, value, source string }{
		{"exchange.embedded_sim", "true", "file " + demo},
		{"strategy.cycle", `"500ms"`, "file " + demo},
		{"log.level", `"info"`, "default"},
		{"exchange.max_batch", "15", "default"},
	} {
		if v, s := settingLine(t, out, c.key); v != c.value || s != c.source {
			t.Errorf("%s = %s # %s, want %s # %s", c.key, v, s, c.value, c.source)
		}
	}
	for _, want := range []string{"account: none read: the embedded simulated exchange", "\nok: no problem found\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
}

// A bad configuration: every problem is listed, each with the source of
// the value, and the command exits 1 with one line on stderr.
func TestConfigCheckBad(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "bad.toml")
	bad := `[exchange]
clob_url = "ftp://example"
data_url = "http://127.0.0.1:8080/data"
catalog_url = "http://127.0.0.1:8080/catalog"
max_batch = 99
[account]
credentials_file = "` + filepath.Join(dir, "missing.json") + `"
[risk]
max_position = "-5"
`
	if err := os.WriteFile(file, []byte(bad), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runConfigCheck(t, []string{"MMBOT_STRATEGY_CYCLE=0s"}, "-c", file, "--set", "risk.cooldown=-1s")
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, out)
	}
	want := []string{
		`exchange.clob_url = "ftp://example" (file ` + file + `): must be an http:// or https:// URL`,
		`exchange.max_batch = 99 (file ` + file + `): must be in 1..15`,
		`strategy.cycle = "0s" (env MMBOT_STRATEGY_CYCLE): must be > 0`,
		`risk.max_position = "-5" (file ` + file + `): must be > 0`,
		`risk.cooldown = "-1s" (flag --set): must be >= 0`,
		`markets: none selected: mmbot run needs markets.condition_ids, markets.slugs or markets.auto.enabled`,
		`account: account.credentials_file: open ` + filepath.Join(dir, "missing.json") + `: no such file or directory`,
	}
	if !strings.Contains(out, "\n7 problems:\n") {
		t.Errorf("no count of 7 problems:\n%s", out)
	}
	for _, w := range want {
		if !strings.Contains(out, "\n  "+w+"\n") {
			t.Errorf("problem not listed: %s\n%s", w, out)
		}
	}
	if errOut != "mmbot config check: 7 problems (listed above)\n" {
		t.Errorf("stderr %q", errOut)
	}
	// The listing shows the bad values too, with their sources.
	if v, s := settingLine(t, out, "strategy.cycle"); v != `"0s"` || s != "env MMBOT_STRATEGY_CYCLE" {
		t.Errorf("strategy.cycle = %s # %s", v, s)
	}

	// A source that cannot be decoded: no listing, every key error listed.
	code, out, _ = runConfigCheck(t, []string{"MMBOT_LOG_LEVL=debug"}, "-c", file, "--set", "risk.max_position=lots")
	if code != 1 || !strings.HasPrefix(out, "2 problems:\n") {
		t.Fatalf("exit %d: want only the 2 problems:\n%s", code, out)
	}
	for _, w := range []string{
		`env MMBOT_LOG_LEVL: key "log_levl": not a configuration key (did you mean "log.level"?)`,
		`flag --set: key "risk.max_position": invalid decimal "lots"`,
	} {
		if !strings.Contains(out, "\n  "+w) {
			t.Errorf("problem not listed: %s\n%s", w, out)
		}
	}
}

// A guard that mmbot run refuses (max_cycle_gap under two cycles, a rule
// of run and not of validation) is a problem of config check too.
func TestConfigCheckGuardGap(t *testing.T) {
	demo := filepath.Join("..", "..", "configs", "demo.toml")
	code, out, _ := runConfigCheck(t, nil, "-c", demo, "--set", "strategy.cycle=10s")
	want := "\n  strategy.guard.max_cycle_gap = 15s: must be >= 2 × strategy.cycle (20s) to run the daemon\n"
	if code != 1 || !strings.Contains(out, "\n1 problem:\n") || !strings.Contains(out, want) {
		t.Fatalf("exit %d, want 1 with %q:\n%s", code, want, out)
	}
}

// A value set by the environment or a flag shows that source; a flag wins
// over the environment, which wins over the file.
func TestConfigCheckShowsOverrides(t *testing.T) {
	demo := filepath.Join("..", "..", "configs", "demo.toml")
	environ := []string{"MMBOT_LOG_LEVEL=warn", "MMBOT_RISK__MAX_POSITION=150", "MMBOT_SIM_SEED=9", "MMBOT_STATE_PATH=env.db"}
	code, out, errOut := runConfigCheck(t, environ, "-c", demo, "--log-level", "debug", "--set", "strategy.cycle=2s", "--state-path", "flag.db")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q\n%s", code, errOut, out)
	}
	for _, c := range []struct{ key, value, source string }{
		{"log.level", `"debug"`, "flag --log-level"},
		{"risk.max_position", `"150"`, "env MMBOT_RISK__MAX_POSITION"},
		{"sim.seed", "9", "env MMBOT_SIM_SEED"},
		{"strategy.cycle", `"2s"`, "flag --set"},
		{"state.path", `"flag.db"`, "flag --state-path"},
		{"sim.markets", "8", "file " + demo},
	} {
		if v, s := settingLine(t, out, c.key); v != c.value || s != c.source {
			t.Errorf("%s = %s # %s, want %s # %s", c.key, v, s, c.value, c.source)
		}
	}
}

// The account is read as mmbot run reads it, from a credentials file or
// from the key and secret sources; its address is shown, and no secret
// appears anywhere, even one set in the environment.
func TestConfigCheckReadsAccountAndRedacts(t *testing.T) {
	dir := t.TempDir()
	creds := filepath.Join(dir, "creds.json")
	urls := sim.URLs{Data: "http://127.0.0.1:8080/data", Catalog: "http://127.0.0.1:8080/catalog", CLOB: "http://127.0.0.1:8080/clob"}
	ac := simAccount(t, creds, urls)
	secrets := []string{ac.APIKey, ac.Secret.Reveal(), ac.Passphrase.Reveal(), ac.PrivateKey.Reveal(), strings.TrimPrefix(ac.PrivateKey.Reveal(), "0x")}
	live := []string{"--set", "exchange.data_url=" + urls.Data, "--set", "exchange.catalog_url=" + urls.Catalog,
		"--set", "exchange.clob_url=" + urls.CLOB, "--set", "markets.auto.enabled=true"}

	cases := []struct {
		name    string
		environ []string
		args    []string
		from    string
	}{
		{"credentials file", nil, []string{"--set", "account.credentials_file=" + creds}, "account.credentials_file " + creds},
		{"environment", []string{"MMBOT_PRIVATE_KEY=" + ac.PrivateKey.Reveal(), "MMBOT_API_SECRET=" + ac.Secret.Reveal(),
			"MMBOT_PASSPHRASE=" + ac.Passphrase.Reveal(), "MMBOT_ACCOUNT_API_KEY=" + ac.APIKey}, nil, "the key and API credential sources"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := runConfigCheck(t, c.environ, append(live, c.args...)...)
			if code != 0 || errOut != "" {
				t.Fatalf("exit %d, stderr %q\n%s", code, errOut, out)
			}
			if !strings.Contains(out, "account: address "+ac.Address+", maker "+ac.Address+", signature type 0, API key [redacted] (read from "+c.from) {
				t.Errorf("the account is not shown:\n%s", out)
			}
			for _, s := range secrets {
				if strings.Contains(out+errOut, s) {
					t.Errorf("a secret (%d characters) is in the output:\n%s", len(s), out)
				}
			}
		})
	}
	// The API key set in the environment is listed, redacted, with its source.
	_, out, _ := runConfigCheck(t, cases[1].environ, live...)
	if v, s := settingLine(t, out, "account.api_key"); v != "[redacted]" || s != "env MMBOT_ACCOUNT_API_KEY" {
		t.Errorf("account.api_key = %s # %s", v, s)
	}
}

// A credentials file or key that cannot be read is a problem that names the
// file and the cause, never the content.
func TestConfigCheckUnreadableAccount(t *testing.T) {
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "key.hex")
	const junk = "0xnot-a-key-but-maybe-a-secret"
	if err := os.WriteFile(keyFile, []byte(junk+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	notJSON := filepath.Join(dir, "creds.json")
	if err := os.WriteFile(notJSON, []byte(`{"secret": "hunter2"`), 0o600); err != nil {
		t.Fatal(err)
	}
	live := []string{"--set", "exchange.data_url=http://127.0.0.1:8080/data", "--set", "exchange.catalog_url=http://127.0.0.1:8080/catalog",
		"--set", "exchange.clob_url=http://127.0.0.1:8080/clob", "--set", "markets.auto.enabled=true"}
	cases := []struct {
		name string
		args []string
		want []string
	}{
		{"missing credentials file", []string{"--set", "account.credentials_file=" + filepath.Join(dir, "nope.json")},
			[]string{"account: account.credentials_file: open " + filepath.Join(dir, "nope.json") + ": no such file or directory"}},
		{"credentials file not JSON", []string{"--set", "account.credentials_file=" + notJSON},
			[]string{"account: account.credentials_file: sim: credentials file " + notJSON + ": unexpected end of JSON input"}},
		{"bad key file, no API secret or passphrase", []string{"--set", "account.private_key_file=" + keyFile},
			[]string{
				"account: private key: key file " + keyFile + ": invalid private key",
				`account: API secret: no source holds the secret (file, systemd credential "mmbot-api-secret", variable "MMBOT_API_SECRET")`,
				`account: passphrase: no source holds the secret (file, systemd credential "mmbot-passphrase", variable "MMBOT_PASSPHRASE")`,
			}},
		{"missing key file", []string{"--set", "account.private_key_file=" + filepath.Join(dir, "nope.hex")},
			[]string{"account: private key: invalid key source: key file: open " + filepath.Join(dir, "nope.hex") + ": no such file or directory"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := runConfigCheck(t, nil, append(live, c.args...)...)
			if code != 1 {
				t.Fatalf("exit %d, want 1\n%s", code, out)
			}
			for _, w := range c.want {
				if !strings.Contains(out, "\n  "+w) {
					t.Errorf("problem not listed: %s\n%s", w, out)
				}
			}
			if strings.Contains(out+errOut, "not-a-key") || strings.Contains(out+errOut, "hunter2") {
				t.Errorf("the content of a secret file is in the output:\n%s", out)
			}
		})
	}
}

// A warning (a key file others can read) is listed and does not fail the
// check; --dry-run reads no account, as mmbot run --dry-run needs none.
func TestConfigCheckWarningsAndDryRun(t *testing.T) {
	dir := t.TempDir()
	ac := simAccount(t, filepath.Join(dir, "creds.json"), sim.URLs{})
	keyFile := filepath.Join(dir, "key.hex")
	if err := os.WriteFile(keyFile, []byte(ac.PrivateKey.Reveal()+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(keyFile, 0o644); err != nil {
		t.Fatal(err)
	}
	live := []string{"--set", "exchange.data_url=http://127.0.0.1:8080/data", "--set", "exchange.catalog_url=http://127.0.0.1:8080/catalog",
		"--set", "exchange.clob_url=http://127.0.0.1:8080/clob", "--set", "markets.auto.enabled=true"}
	environ := []string{"MMBOT_API_SECRET=" + ac.Secret.Reveal(), "MMBOT_PASSPHRASE=" + ac.Passphrase.Reveal(), "MMBOT_ACCOUNT_API_KEY=" + ac.APIKey}
	code, out, errOut := runConfigCheck(t, environ, append(live, "--set", "account.private_key_file="+keyFile)...)
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d, stderr %q\n%s", code, errOut, out)
	}
	for _, want := range []string{"\nwarning: key file " + keyFile + " has mode 0644", "\naccount: address " + ac.Address, "\nok: no problem found\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}

	code, out, _ = runConfigCheck(t, nil, append(live, "--dry-run")...)
	if code != 0 || !strings.Contains(out, "\naccount: none read: --dry-run needs none\n") {
		t.Errorf("--dry-run: exit %d\n%s", code, out)
	}
	if code, out, _ = runConfigCheck(t, nil, live...); code != 1 || !strings.Contains(out, "account: private key: ") {
		t.Errorf("without --dry-run the missing key is a problem: exit %d\n%s", code, out)
	}
}
