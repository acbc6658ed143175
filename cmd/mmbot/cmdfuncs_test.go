package main

import (
	"time"

	"github.com/spf13/cobra"

	"github.com/mmbot/mmbot/exchange/sim"
)

// The command tests call a command as a function of its arguments. These
// run the arguments through the command tree as "mmbot <command> args",
// with the test's hooks in the command, and return the command's error.

func cmdRun(e *env, args []string) error     { return runCommand(e, newRunCmd(e), args) }
func cmdRecord(e *env, args []string) error  { return runCommand(e, newRecordCmd(e), args) }
func cmdMarkets(e *env, args []string) error { return runCommand(e, newMarketsCmd(e), args) }

// runSim runs mmbot sim on any free port unless args give an --addr (a
// later flag wins): tests never take the fixed default port.
func runSim(e *env, args []string, ready func(*sim.Exchange, sim.URLs)) error {
	return runCommand(e, newSimCmd(e, ready), append([]string{"--addr", "127.0.0.1:0"}, args...))
}

func runOrders(e *env, args []string, now time.Time) error {
	return runCommand(e, newOrdersCmd(e, func() time.Time { return now }), args)
}

// runCommand runs "mmbot <cmd> args" with cmd in place of the tree's own
// command of that name.
func runCommand(e *env, cmd *cobra.Command, args []string) error {
	root := newRootCmd(e)
	for _, c := range root.Commands() {
		if c.Name() == cmd.Name() {
			root.RemoveCommand(c)
		}
	}
	root.AddCommand(cmd)
	_, err := execute(e, root, append([]string{cmd.Name()}, args...))
	return err
}
