package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mmbot/mmbot/configs"
)

// env is what a subcommand gets from the process: standard streams, the
// environment and a context that the subcommand may wrap with its own signal
// handling. Tests build one by hand.
type env struct {
	ctx    context.Context
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	getenv func(string) string
	// environ is the whole environment ("NAME=value"), for configs.Load.
	environ []string
}

// usageError is returned for bad command-line input; it exits with status 2.
type usageError struct{ msg string }

func (u *usageError) Error() string { return u.msg }

func usagef(format string, a ...any) error { return &usageError{msg: fmt.Sprintf(format, a...)} }

// errNoCommand is returned by a bare "mmbot", after the help: exit status 2
// and nothing more to say.
var errNoCommand = &usageError{msg: "no command"}

const rootLong = `mmbot is an automated market maker for a prediction-market exchange with a
central limit order book. It quotes both sides of binary markets, keeps its
orders on the tick grid and inside the configured risk limits, and cancels
everything when a kill switch trips. The same strategy, risk and planner code
runs live, in paper trading, in backtests over recorded order books and
against a simulated exchange (README.md, docs/).`

const rootExample = `  mmbot run -c configs/demo.toml --duration 60s    # the demo, no account needed
  mmbot sim --accounts 2    # on 127.0.0.1:8080, credentials in sim-creds.json
  mmbot config check -c configs/mmbot.example.toml --set account.credentials_file=sim-creds.json
  mmbot backtest -c configs/demo.toml --data rec.mmrec --out report/
  mmbot import --out rec.jsonl.gz --catalog markets.json 'captures/*.jsonl.gz'
  mmbot statement -c configs/demo.toml --from 24h
  source <(mmbot completion bash)`

// suggestDistance is the largest edit distance from a mistyped command name
// to a command that is suggested for it (a command it is a prefix of is
// suggested too).
const suggestDistance = 2

// newRootCmd builds the command tree of one invocation; every command reads
// its streams and environment from e.
func newRootCmd(e *env) *cobra.Command {
	root := &cobra.Command{
		Use:     "mmbot <command> [flags]",
		Short:   "an automated market maker for a prediction-market exchange",
		Long:    rootLong,
		Example: rootExample,
		Version: buildVersion(version),
		// A bare "mmbot" prints the help and exits 2; anything else that is
		// not a command is a mistyped one.
		Args: unknownCommand,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := cmd.Help(); err != nil {
				return err
			}
			return errNoCommand
		},
		SilenceErrors:              true,
		SilenceUsage:               true,
		SuggestionsMinimumDistance: suggestDistance,
	}
	root.SetVersionTemplate("mmbot {{.Version}}\n")
	root.Flags().Bool("version", false, "print the version (as mmbot version)")
	root.SetHelpFunc(func(c *cobra.Command, _ []string) {
		if err := writeHelp(c.ErrOrStderr(), c); err != nil {
			c.PrintErrln(err)
		}
	})
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		// In "mmbot rnu --dry-run" the mistyped command says more than
		// the flag that mmbot itself does not have.
		if c.HasAvailableSubCommands() && c.Flags().NArg() > 0 {
			return unknownCommand(c, c.Flags().Args())
		}
		return usagef("%v", err)
	})
	root.AddCommand(
		newRunCmd(e),
		newConfigCmd(e),
		newBacktestCmd(e),
		newExportCmd(e),
		newRecordCmd(e),
		newImportCmd(e, time.Now),
		newRecordingCmd(e),
		newSimCmd(e, nil),
		newScoreboardCmd(e),
		newMarketsCmd(e),
		newOrdersCmd(e, time.Now),
		newJournalCmd(e, time.Now),
		newStatusCmd(e),
		newStatementCmd(e, time.Now),
		newCancelAllCmd(e),
		newOrderCmd(e),
		newVersionCmd(e),
	)
	root.SetIn(e.stdin)
	root.SetOut(e.stdout)
	root.SetErr(e.stderr)
	// cobra adds "help" and "completion" itself when it executes; added now,
	// they say what they do in the words of the other commands, and their
	// argument checks are wrapped like every other command's (execute).
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd() // after SetOut: the scripts go to stdout
	completeFlagValues(root)
	for _, c := range root.Commands() {
		switch c.Name() {
		case "help":
			c.Short = "print the help of a command (as mmbot <command> --help)"
		case "completion":
			c.Short = "print a shell completion script: bash, zsh, fish or powershell"
			// Like order, a group whose arguments are subcommand names.
			c.Args, c.SuggestionsMinimumDistance = unknownCommand, suggestDistance
			c.RunE = func(*cobra.Command, []string) error {
				return usagef("completion needs a shell: bash, zsh, fish or powershell")
			}
		}
	}
	return root
}

func main() {
	e := &env{ctx: context.Background(), stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv, environ: os.Environ()}
	os.Exit(runMain(e, os.Args[1:]))
}

// runMain runs one command line and maps its error to an exit status:
// 0 success, 2 usage error, 1 anything else. An error is one line,
// "mmbot <command>: <message>". A message that starts with the command's
// name already (a package's own prefix, "sim: listen: ...") is not
// prefixed with it twice.
func runMain(e *env, args []string) int {
	cmd, err := execute(e, newRootCmd(e), args)
	if err == nil {
		return 0
	}
	if err != errNoCommand { // else the help said it all
		msg := strings.TrimPrefix(err.Error(), cmd.Name()+": ")
		fmt.Fprintf(e.stderr, "%s: %s\n", cmd.CommandPath(), msg)
	}
	var u *usageError
	if errors.As(err, &u) {
		return 2
	}
	return 1
}

// execute runs args through the tree of root in e's context and returns
// the command that ran (or failed to) and its error. A bad command line is
// a *usageError, whichever part of cobra found it.
func execute(e *env, root *cobra.Command, args []string) (*cobra.Command, error) {
	if args == nil {
		args = []string{} // nil would make cobra read os.Args
	}
	root.SetArgs(args)
	usageArgs(root)
	cmd, err := root.ExecuteContextC(e.ctx)
	if cmd == nil {
		cmd = root
	}
	return cmd, err
}

// completeFlagValues makes shell completion offer the words of the flags
// of c and its subcommands that take one of a few.
func completeFlagValues(c *cobra.Command) {
	words := map[string][]string{
		configs.FlagLogLevel:  {"trace", "debug", "info", "warn", "error"},
		configs.FlagLogFormat: {"auto", "json", "console"},
		"status":              {"auto", "on", "off"},
		"fill-model":          {"queue", "conservative", "optimistic"},
		"side":                {"BUY", "SELL"},
		"order-type":          {"GTC", "GTD", "FOK", "FAK"},
		"trade-side":          {"taker", "maker", "none"},
	}
	for name, w := range words {
		if c.Flags().Lookup(name) != nil {
			// Only fails for a flag that is not there or already has one.
			_ = c.RegisterFlagCompletionFunc(name, cobra.FixedCompletions(w, cobra.ShellCompDirectiveNoFileComp))
		}
	}
	for _, s := range c.Commands() {
		completeFlagValues(s)
	}
}

// usageArgs makes the argument check of c and its subcommands return a
// *usageError.
func usageArgs(c *cobra.Command) {
	check := c.Args
	if check == nil {
		check = cobra.ArbitraryArgs
	}
	c.Args = func(c *cobra.Command, args []string) error {
		err := check(c, args)
		var u *usageError
		if err != nil && !errors.As(err, &u) {
			return &usageError{msg: err.Error()}
		}
		return err
	}
	for _, s := range c.Commands() {
		usageArgs(s)
	}
}

// noArgs is the argument check of a command that takes only flags.
func noArgs(_ *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usagef("unexpected arguments %q", args)
	}
	return nil
}

// unknownCommand is the argument check of a command whose arguments can
// only be subcommands: it names the unknown one and suggests the nearest.
func unknownCommand(c *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	msg := fmt.Sprintf("unknown command %q", args[0])
	if c.HasParent() {
		msg = fmt.Sprintf("unknown %s subcommand %q", c.Name(), args[0])
	}
	switch s := c.SuggestionsFor(args[0]); len(s) {
	case 0:
	case 1:
		return usagef("%s\ndid you mean %q?", msg, s[0])
	default:
		return usagef("%s\ndid you mean one of %s?", msg, quoteList(s))
	}
	return usagef("%s\nrun '%s --help' for the commands", msg, c.CommandPath())
}

// quoteList is "a", "b", "c".
func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
}

// writeHelp writes the help of c: the usage line, the description, the
// examples, the subcommands and the flags.
func writeHelp(w io.Writer, c *cobra.Command) error {
	var b strings.Builder
	fmt.Fprintf(&b, "usage: %s\n", c.UseLine())
	if text := cmp.Or(c.Long, c.Short); text != "" {
		fmt.Fprintf(&b, "\n%s\n", strings.TrimRight(text, "\n"))
	}
	if c.HasExample() {
		fmt.Fprintf(&b, "\nexamples:\n%s\n", strings.TrimRight(c.Example, "\n"))
	}
	if c.HasAvailableSubCommands() {
		b.WriteString("\ncommands:\n")
		for _, s := range c.Commands() {
			if s.IsAvailableCommand() || s.Name() == "help" {
				fmt.Fprintf(&b, "  %-*s  %s\n", s.NamePadding(), s.Name(), s.Short)
			}
		}
	}
	if c.HasAvailableLocalFlags() {
		fmt.Fprintf(&b, "\nflags:\n%s", c.LocalFlags().FlagUsages())
	}
	if c.HasAvailableInheritedFlags() {
		fmt.Fprintf(&b, "\nglobal flags:\n%s", c.InheritedFlags().FlagUsages())
	}
	if c.HasAvailableSubCommands() {
		fmt.Fprintf(&b, "\nrun '%s <command> --help' for a command's description and flags\n", c.CommandPath())
	}
	_, err := io.WriteString(w, b.String())
	return err
}
