package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
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

// command is one subcommand of mmbot.
type command struct {
	summary string
	run     func(e *env, args []string) error
}

// usageError is returned for bad command-line input; it exits with status 2.
type usageError struct{ msg string }

func (u *usageError) Error() string { return u.msg }

func usagef(format string, a ...any) error { return &usageError{msg: fmt.Sprintf(format, a...)} }

func commands() map[string]command {
	return map[string]command{
		"run":        {"quote the configured markets (live, or paper with --dry-run)", cmdRun},
		"backtest":   {"replay a recording through the strategy and write a report", cmdBacktest},
		"record":     {"record books and trades of the configured markets", cmdRecord},
		"sim":        {"run the simulated exchange on loopback", cmdSim},
		"markets":    {"list markets with tick size, minimum size and reward terms", cmdMarkets},
		"orders":     {"list the orders in the state journal", cmdOrders},
		"cancel-all": {"cancel every live order the journal owns", cmdCancelAll},
		"order":      {"sign or verify one order (order sign | order verify)", cmdOrder},
		"version":    {"print the version", cmdVersion},
	}
}

func main() {
	e := &env{ctx: context.Background(), stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv, environ: os.Environ()}
	os.Exit(runMain(e, os.Args[1:]))
}

// runMain dispatches to a subcommand and maps its error to an exit status:
// 0 success, 2 usage error, 1 anything else.
func runMain(e *env, args []string) int {
	cmds := commands()
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		printUsage(e.stderr, cmds)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	c, ok := cmds[args[0]]
	if !ok {
		fmt.Fprintf(e.stderr, "mmbot: unknown command %q\n\n", args[0])
		printUsage(e.stderr, cmds)
		return 2
	}
	if err := c.run(e, args[1:]); err != nil {
		var u *usageError
		if errors.As(err, &u) {
			fmt.Fprintf(e.stderr, "mmbot %s: %v\n", args[0], err)
			return 2
		}
		fmt.Fprintf(e.stderr, "mmbot %s: %v\n", args[0], err)
		return 1
	}
	return 0
}

func printUsage(w io.Writer, cmds map[string]command) {
	names := make([]string, 0, len(cmds))
	for n := range cmds {
		names = append(names, n)
	}
	sort.Strings(names)
	fmt.Fprintln(w, "usage: mmbot <command> [flags]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "commands:")
	for _, n := range names {
		fmt.Fprintf(w, "  %-11s %s\n", n, cmds[n].summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "run 'mmbot <command> --help' for a command's flags")
}

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func cmdVersion(e *env, args []string) error {
	if len(args) > 0 {
		return usagef("version takes no arguments, got %q", args)
	}
	_, err := fmt.Fprintln(e.stdout, "mmbot", version)
	return err
}
