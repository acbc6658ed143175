package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/mmbot/mmbot/configs"
)

// runCLI runs one command line through runMain with an empty environment
// (plus environ) and returns the exit status, stdout and stderr.
func runCLI(t *testing.T, environ []string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	e := &env{ctx: context.Background(), stdin: strings.NewReader(""), stdout: &out, stderr: &errb,
		getenv: func(string) string { return "" }, environ: environ}
	code := runMain(e, args)
	return code, out.String(), errb.String()
}

// ourCommands walks the tree and returns the command paths (without
// "mmbot") of every command that mmbot defines: not cobra's help and
// completion commands.
func ourCommands(c *cobra.Command) []string {
	var paths []string
	for _, s := range c.Commands() {
		if s.Name() == "help" || s.Name() == "completion" || s.Hidden {
			continue
		}
		paths = append(paths, strings.TrimPrefix(s.CommandPath(), "mmbot "))
		paths = append(paths, ourCommands(s)...)
	}
	return paths
}

// Every command's --help prints its usage line, its description, its
// examples and its flags on stderr, and exits 0.
func TestHelpOfEveryCommand(t *testing.T) {
	cases := []struct {
		path string // "" for mmbot itself
		desc string // a phrase of the description
	}{
		{"", "automated market maker for a prediction-market exchange"},
		{"run", "Runs the daemon"},
		{"config", "Inspects the configuration that mmbot run would use"},
		{"config check", "Loads the configuration exactly as mmbot run does"},
		{"backtest", "Replays a recording"},
		{"backtest merge", "Joins the shards of one sweep"},
		{"export", "Writes mmbot data as Parquet files"},
		{"export recording", "Reads a recording"},
		{"record", "Records the books and trades"},
		{"import", "Converts captures of the exchange's public market channel"},
		{"recording", "Works on recording files"},
		{"recording convert", "Copies the recording IN into OUT"},
		{"recording info", "Describes a recording"},
		{"sim", "Runs the simulated exchange"},
		{"scoreboard", "Generates recordings of the simulated exchange for each named market"},
		{"markets", "Lists the order-book API's markets"},
		{"orders", "Lists the orders in the state journal"},
		{"journal", "Maintains the state journal"},
		{"journal compact", "Rewrites the journal with bbolt's compaction"},
		{"journal export", "Writes the journal's orders created in the period"},
		{"statement", "Reports the fills, volume, fees, realized and marked PnL per market"},
		{"cancel-all", "Cancels every live order the state journal owns"},
		{"status", "Asks the running daemon for its status"},
		{"order", "Signs one order"},
		{"order sign", "Prints the POST /orders item"},
		{"order verify", "Reads a POST /orders item"},
		{"version", "Prints the version of this binary"},
		{"completion", "autocompletion script"},
	}
	covered := map[string]bool{}
	for _, c := range cases {
		covered[c.path] = true
		name := "mmbot " + c.path
		t.Run(name, func(t *testing.T) {
			args := append(strings.Fields(c.path), "--help")
			code, out, errOut := runCLI(t, nil, args...)
			if code != 0 || out != "" {
				t.Fatalf("exit %d, stdout %q", code, out)
			}
			usage := "usage: " + strings.TrimSpace(name)
			for _, want := range []string{usage, c.desc, "-h, --help"} {
				if !strings.Contains(errOut, want) {
					t.Errorf("the help does not say %q:\n%s", want, errOut)
				}
			}
			if !strings.HasPrefix(errOut, usage) {
				t.Errorf("the help does not start with %q:\n%s", usage, errOut)
			}
			if c.path != "completion" && !strings.Contains(errOut, "\nexamples:\n  ") {
				t.Errorf("no examples:\n%s", errOut)
			}
			// -h and "mmbot help <command>" say the same.
			_, _, short := runCLI(t, nil, append(strings.Fields(c.path), "-h")...)
			_, _, viaHelp := runCLI(t, nil, append([]string{"help"}, strings.Fields(c.path)...)...)
			if short != errOut || viaHelp != errOut {
				t.Errorf("-h or mmbot help print another help:\n%s\n%s", short, viaHelp)
			}
		})
	}
	// The table covers every command, and every command has the three texts.
	root := newRootCmd(&env{ctx: context.Background(), stdin: strings.NewReader(""), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}})
	for _, path := range ourCommands(root) {
		if !covered[path] {
			t.Errorf("mmbot %s: no case in this test", path)
		}
		c, _, err := root.Find(strings.Fields(path))
		if err != nil {
			t.Fatal(err)
		}
		if c.Short == "" || c.Long == "" || c.Example == "" {
			t.Errorf("mmbot %s: Short %q, Long %q, Example %q: want all three", path, c.Short, c.Long, c.Example)
		}
	}
}

// A bare mmbot prints the help and exits 2, as before cobra.
func TestNoCommand(t *testing.T) {
	code, out, errOut := runCLI(t, nil)
	if code != 2 || out != "" || !strings.HasPrefix(errOut, "usage: mmbot <command> [flags]\n") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	for _, name := range []string{"run", "config", "backtest", "export", "record", "recording", "import", "sim", "markets", "orders", "journal", "statement", "cancel-all", "status", "order", "version", "completion"} {
		if !strings.Contains(errOut, "\n  "+name+" ") {
			t.Errorf("the command list lacks %s:\n%s", name, errOut)
		}
	}
}

// A mistyped command exits 2 and names the nearest commands.
func TestUnknownCommandSuggests(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"rnu"}, "mmbot: unknown command \"rnu\"\ndid you mean \"run\"?\n"},
		{[]string{"cancelall"}, "mmbot: unknown command \"cancelall\"\ndid you mean \"cancel-all\"?\n"},
		{[]string{"or"}, "mmbot: unknown command \"or\"\ndid you mean one of \"order\", \"orders\"?\n"},
		{[]string{"pnl"}, "mmbot: unknown command \"pnl\"\ndid you mean \"statement\"?\n"},
		{[]string{"xyzzy", "--json"}, "mmbot: unknown command \"xyzzy\"\nrun 'mmbot --help' for the commands\n"},
		{[]string{"rnu", "--dry-run"}, "mmbot: unknown command \"rnu\"\ndid you mean \"run\"?\n"},
		{[]string{"order", "sgin"}, "mmbot order: unknown order subcommand \"sgin\"\ndid you mean \"sign\"?\n"},
		{[]string{"config", "chekc"}, "mmbot config: unknown config subcommand \"chekc\"\ndid you mean \"check\"?\n"},
		{[]string{"config"}, "mmbot config: config needs a subcommand: check\n"},
		{[]string{"export", "recordnig"}, "mmbot export: unknown export subcommand \"recordnig\"\ndid you mean \"recording\"?\n"},
		{[]string{"export"}, "mmbot export: export needs a subcommand: recording\n"},
		{[]string{"recording"}, "mmbot recording: recording needs a subcommand: convert or info\n"},
		{[]string{"recording", "convrt"}, "mmbot recording: unknown recording subcommand \"convrt\"\ndid you mean \"convert\"?\n"},
		{[]string{"completion", "bassh"}, "mmbot completion: unknown completion subcommand \"bassh\"\ndid you mean \"bash\"?\n"},
		{[]string{"completion"}, "mmbot completion: completion needs a shell: bash, zsh, fish or powershell\n"},
	}
	for _, c := range cases {
		code, out, errOut := runCLI(t, nil, c.args...)
		if code != 2 || out != "" || errOut != c.want {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 2, stderr %q", c.args, code, out, errOut, c.want)
		}
	}
}

// A bad flag exits 2 with one line that names the command and the flag;
// any other error exits 1 with one line too (no usage dump).
func TestErrorLines(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope")
	cases := []struct {
		args []string
		code int
		want string // the whole of stderr
	}{
		{[]string{"--bogus"}, 2, "mmbot: unknown flag: --bogus\n"},
		{[]string{"run", "--bogus"}, 2, "mmbot run: unknown flag: --bogus\n"},
		{[]string{"backtest", "--data"}, 2, "mmbot backtest: flag needs an argument: --data\n"},
		{[]string{"cancel-all", "--timeout", "soon"}, 2, "mmbot cancel-all: invalid argument \"soon\" for \"--timeout\" flag: time: invalid duration \"soon\"\n"},
		{[]string{"markets", "-x"}, 2, "mmbot markets: unknown shorthand flag: 'x' in -x\n"},
		{[]string{"order", "sign", "--private-key", "0x00"}, 2, "mmbot order sign: unknown flag: --private-key\n"},
		{[]string{"version", "--short"}, 2, "mmbot version: unknown flag: --short\n"},
		{[]string{"version", "now"}, 2, "mmbot version: unexpected arguments [\"now\"]\n"},
		{[]string{"record", "--out", "x", "extra"}, 2, "mmbot record: unexpected arguments [\"extra\"]\n"},
		{[]string{"import", "--out", "x"}, 2, "mmbot import: no input: give capture files or glob patterns\n"},
		{[]string{"orders", "--state", missing + ".db"}, 1, ""},
		{[]string{"run", "-c", missing + ".toml"}, 1, ""},
	}
	for _, c := range cases {
		code, out, errOut := runCLI(t, nil, c.args...)
		if code != c.code || out != "" {
			t.Errorf("%q: exit %d, stdout %q; want exit %d", c.args, code, out, c.code)
		}
		if c.want != "" && errOut != c.want {
			t.Errorf("%q: stderr %q, want %q", c.args, errOut, c.want)
		}
		prefix := "mmbot " + c.args[0] + ": "
		switch {
		case strings.HasPrefix(c.args[0], "-"):
			prefix = "mmbot: "
		case c.args[0] == "order":
			prefix = "mmbot order " + c.args[1] + ": "
		}
		if strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, prefix) {
			t.Errorf("%q: stderr %q, want one line starting %q", c.args, errOut, prefix)
		}
	}
}

// mmbot --version and mmbot version print the same line on stdout.
func TestVersionFlag(t *testing.T) {
	code1, flag, err1 := runCLI(t, nil, "--version")
	code2, cmd, err2 := runCLI(t, nil, "version")
	if code1 != 0 || code2 != 0 || err1 != "" || err2 != "" {
		t.Fatalf("exit %d/%d, stderr %q %q", code1, code2, err1, err2)
	}
	want := "mmbot " + buildVersion(version) + "\n"
	if flag != want || cmd != want {
		t.Fatalf("--version %q, version %q; want %q", flag, cmd, want)
	}
}

// Flags parsed by cobra layer over the file and the environment as
// before: a flag given wins, a flag not given leaves the lower layers.
func TestConfigFlagsThroughCobra(t *testing.T) {
	file := filepath.Join(t.TempDir(), "mmbot.toml")
	toml := "[log]\nlevel = \"warn\"\n[exchange]\nembedded_sim = true\n[state]\npath = \"file.db\"\n"
	if err := os.WriteFile(file, []byte(toml), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		environ          []string
		args             []string
		level, statePath string
	}{
		{nil, nil, "warn", "file.db"},
		{[]string{"MMBOT_LOG_LEVEL=error"}, nil, "error", "file.db"},
		{[]string{"MMBOT_LOG_LEVEL=error"}, []string{"--log-level", "debug"}, "debug", "file.db"},
		{[]string{"MMBOT_LOG_LEVEL=error"}, []string{"--log-level", "debug", "--set", "log.level=trace"}, "trace", "file.db"},
		{[]string{"MMBOT_STATE_PATH=env.db"}, []string{"--state-path", "flag.db"}, "warn", "flag.db"},
		{[]string{"MMBOT_STATE_PATH=env.db"}, []string{"--log-format", "json"}, "warn", "env.db"},
	}
	for _, name := range []string{"run", "backtest", "record", "cancel-all", "config check"} {
		for _, c := range cases {
			e := &env{ctx: context.Background(), stdin: strings.NewReader(""), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}, environ: c.environ}
			root := newRootCmd(e)
			cmd, _, err := root.Find(strings.Fields(name))
			if err != nil {
				t.Fatal(err)
			}
			var cfg *configs.Config
			cmd.RunE = func(cmd *cobra.Command, _ []string) (err error) {
				cfg, err = configs.Load(configs.LoadOptions{Environ: e.environ, Flags: cmd.Flags()})
				return err
			}
			args := append(append(strings.Fields(name), "-c", file), c.args...)
			if _, err := execute(e, root, args); err != nil {
				t.Fatalf("%q: %v", args, err)
			}
			if cfg.Log.Level != c.level || cfg.State.Path != c.statePath {
				t.Errorf("%q with %q: log.level %q, state.path %q; want %q, %q", args, c.environ, cfg.Log.Level, cfg.State.Path, c.level, c.statePath)
			}
		}
	}
}

// mmbot completion prints each shell's script; the script asks the binary
// (mmbot __complete ...) for the words, which are the commands and flags.
func TestCompletion(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish", "powershell"} {
		code, out, errOut := runCLI(t, nil, "completion", shell)
		if code != 0 || errOut != "" || !strings.Contains(out, "mmbot") || !strings.Contains(out, "__complete") {
			t.Errorf("completion %s: exit %d, stderr %q, %d bytes without the mmbot __complete call", shell, code, errOut, len(out))
		}
	}
	_, bash, _ := runCLI(t, nil, "completion", "bash")
	if !strings.Contains(bash, "complete -o default -F __start_mmbot mmbot") {
		t.Errorf("the bash script does not register itself for mmbot:\n%.500s", bash)
	}

	words := func(args ...string) []string {
		t.Helper()
		code, out, errOut := runCLI(t, nil, append([]string{"__complete"}, args...)...)
		if code != 0 {
			t.Fatalf("__complete %q: exit %d, %s", args, code, errOut)
		}
		var w []string
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			if !strings.HasPrefix(line, ":") { // the last line is the directive
				w = append(w, strings.SplitN(line, "\t", 2)[0])
			}
		}
		return w
	}
	cmds := strings.Join(words(""), " ")
	for _, name := range []string{"run", "config", "backtest", "record", "recording", "import", "sim", "markets", "orders", "cancel-all", "status", "order", "version", "completion", "help"} {
		if !strings.Contains(" "+cmds+" ", " "+name+" ") {
			t.Errorf("completing a command: %q lacks %s", cmds, name)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"order", ""}, "sign verify"},
		{[]string{"config", ""}, "check"},
		{[]string{"run", "--st"}, "--state-path --status"},
		{[]string{"run", "--status", ""}, "auto on off"},
		{[]string{"backtest", "--fill-model", ""}, "queue conservative optimistic"},
		{[]string{"import", "--trade-side", ""}, "taker maker none"},
		{[]string{"order", "sign", "--side", ""}, "BUY SELL"},
		{[]string{"cancel-all", "--log-level", ""}, "trace debug info warn error"},
	} {
		if got := strings.Join(words(c.args...), " "); got != c.want {
			t.Errorf("completing %q: %q, want %q", c.args, got, c.want)
		}
	}
}
