package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/mmbot/mmbot/configs"
	"github.com/mmbot/mmbot/state"
	"github.com/mmbot/mmbot/strategy"
)

const ordersLong = `Lists the orders in the state journal, oldest first: by default the open
ones (intent, sent, live, partially_filled). The journal is opened read-only
and never modified; while the daemon runs (and holds the file's lock) the
listing comes from a consistent copy of its last commit.

With -c the journal is the config's state.path (environment overrides
apply); --state names it directly and wins.`

const ordersExample = `  mmbot orders --state /var/lib/mmbot/mmbot.db    # live orders
  mmbot orders --state /var/lib/mmbot/mmbot.db --all --json
  mmbot orders -c mmbot.toml --state-filter filled,canceled
  mmbot orders --state mmbot.db.paper    # the orders of a dry run`

// ordersLockTimeout bounds how long mmbot orders tries to get a consistent
// view of a journal that the daemon is writing.
const ordersLockTimeout = 2 * time.Second

// ordersFlags are the parsed flags of mmbot orders.
type ordersFlags struct {
	configPath, statePath string
	all, asJSON           bool
	filter                []string
}

// newOrdersCmd is "mmbot orders", which lists the journal; now reads the
// clock for the age column.
func newOrdersCmd(e *env, now func() time.Time) *cobra.Command {
	var o ordersFlags
	cmd := &cobra.Command{
		Use:     "orders (--state PATH | -c mmbot.toml) [--all | --state-filter STATES] [--json]",
		Short:   "list the orders in the state journal",
		Long:    ordersLong,
		Example: ordersExample,
		Args:    noArgs,
	}
	fs := cmd.Flags()
	fs.StringVarP(&o.configPath, "config", "c", "", "TOML config `file` whose state.path is the journal")
	fs.StringVar(&o.statePath, "state", "", "state journal `path`")
	fs.BoolVar(&o.all, "all", false, "list every order, final ones included")
	fs.BoolVar(&o.asJSON, "json", false, "print a JSON array of the full records")
	fs.StringSliceVar(&o.filter, "state-filter", nil, "list only these `states` (comma-separated: intent,sent,live,partially_filled,filled,canceled,failed)")
	cmd.RunE = func(*cobra.Command, []string) error { return listOrders(e, o, now()) }
	return cmd
}

// listOrders runs "mmbot orders" once its flags are parsed into o.
func listOrders(e *env, o ordersFlags, now time.Time) error {
	configPath, statePath, all, asJSON, filter := o.configPath, o.statePath, o.all, o.asJSON, o.filter
	if statePath == "" {
		if configPath == "" {
			return usagef("--state PATH or -c CONFIG is required")
		}
		cfg, err := configs.Load(configs.LoadOptions{File: configPath, Environ: e.environ})
		if err != nil {
			return fmt.Errorf("configuration: %w", err)
		}
		statePath = cfg.State.Path
	}
	var f state.OrderFilter
	switch {
	case len(filter) > 0 && all:
		return usagef("--all and --state-filter exclude each other")
	case len(filter) > 0:
		for _, name := range filter {
			st, err := state.ParseOrderState(name)
			if err != nil {
				return usagef("--state-filter: unknown state %q (want one of %s)", name, orderStateNames())
			}
			f.States = append(f.States, st)
		}
	case !all:
		for _, st := range state.AllStates() {
			if !st.Final() {
				f.States = append(f.States, st)
			}
		}
	}

	s, err := state.Open(statePath, state.Options{ReadOnly: true, LockTimeout: ordersLockTimeout})
	if err != nil {
		return err
	}
	defer s.Close()
	orders, err := s.Orders(f)
	if err != nil {
		return err
	}
	if txID, ok := s.Snapshot(); ok {
		fmt.Fprintf(e.stderr, "mmbot orders: read a consistent copy of %s as of transaction %d (the journal is in use or in an older format)\n", statePath, txID)
	}
	if asJSON {
		return writeOrdersJSON(e.stdout, orders)
	}
	return writeOrdersTable(e.stdout, orders, now)
}

func orderStateNames() string {
	names := make([]string, 0, 7)
	for _, st := range state.AllStates() {
		names = append(names, string(st))
	}
	return strings.Join(names, ", ")
}

// writeOrdersJSON prints the records as a JSON array. The journal holds no
// API key (the placement item's owner is never stored, and older journals
// lose it in the schema 2 migration), so the listing may be pasted into a
// bug report.
func writeOrdersJSON(w io.Writer, orders []state.Order) error {
	if orders == nil {
		orders = []state.Order{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(orders)
}

// writeOrdersTable prints one aligned row per order with shortened ids: the
// order's hash (which is its exchange id; an exchange id that differs is
// shown after it), its market and outcome.
func writeOrdersTable(w io.Writer, orders []state.Order, now time.Time) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "HASH\tMARKET\tOUTCOME\tSIDE\tPRICE\tSIZE\tMATCHED\tSTATE\tAGE")
	for i := range orders {
		o := &orders[i]
		id := ordersShortID(o.Hash)
		if o.ExchangeID != "" && !strings.EqualFold(o.ExchangeID, o.Hash) {
			id += " (id " + ordersShortID(o.ExchangeID) + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
			id, ordersShortID(o.ConditionID), strategy.Outcome(o.Outcome), o.Side,
			o.Price.String(), o.Size.String(), o.SizeMatched.String(), o.State, ordersAge(now.Sub(o.CreatedAt)))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, plural(len(orders), "order"))
	return err
}

// ordersShortID keeps the first 8 and last 4 characters of a long id (a 0x prefix
// is kept on top), enough to tell orders apart and to grep for.
func ordersShortID(s string) string {
	head := 8
	if strings.HasPrefix(s, "0x") {
		head += 2
	}
	if len(s) <= head+4+2 {
		return s
	}
	return s[:head] + ".." + s[len(s)-4:]
}

// ordersAge formats a duration in its two largest units: 45s, 12m30s, 3h4m, 2d3h.
func ordersAge(d time.Duration) string {
	if d < 0 {
		return "0s"
	}
	s := int64(d / time.Second)
	switch {
	case s < 60:
		return fmt.Sprintf("%ds", s)
	case s < 3600:
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	case s < 86400:
		return fmt.Sprintf("%dh%02dm", s/3600, s%3600/60)
	}
	return fmt.Sprintf("%dd%02dh", s/86400, s%86400/3600)
}
