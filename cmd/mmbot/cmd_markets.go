package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/mmbot/mmbot/exchange"
)

const marketsLong = `Lists the order-book API's markets (GET /markets, every page) with their
trading parameters: the whole condition id (ready for markets.condition_ids),
tick size, minimum order size, neg_risk, the reward terms (rewards.min_size
in shares, rewards.max_spread in cents, the sum of the daily reward rates),
whether the market accepts orders, and the question. --json prints the full
market records instead.

The base addresses default to $MMBOT_EXCHANGE_CLOB_URL and
$MMBOT_EXCHANGE_CATALOG_URL.`

const marketsExample = `  mmbot markets --clob-url http://127.0.0.1:8080/clob    # the simulated exchange of mmbot sim
  mmbot markets --active-only --limit 20
  mmbot markets --json | jq '.[] | select(.neg_risk)'`

// marketsFlags are the parsed flags of mmbot markets.
type marketsFlags struct {
	catalogURL, clobURL string
	asJSON, activeOnly  bool
	limit               int
}

// interactiveRetryBudget is the most mmbot markets, a command a person
// waits for, spends waiting on one call's retries: an exchange asking for a
// longer Retry-After is reported, not waited out (exchange.WithRetryBudget).
// The daemon has no such budget; mmbot statement bounds its reads with a
// deadline of its own.
const interactiveRetryBudget = 10 * time.Second

// newMarketsCmd is "mmbot markets", which lists markets.
func newMarketsCmd(e *env) *cobra.Command {
	var f marketsFlags
	cmd := &cobra.Command{
		Use:     "markets [flags]",
		Short:   "list markets with tick size, minimum size and reward terms",
		Long:    marketsLong,
		Example: marketsExample,
		Args:    noArgs,
	}
	fs := cmd.Flags()
	fs.StringVar(&f.catalogURL, "catalog-url", "", "catalog API base `URL` (default $MMBOT_EXCHANGE_CATALOG_URL)")
	fs.StringVar(&f.clobURL, "clob-url", "", "order-book API base `URL` (default $MMBOT_EXCHANGE_CLOB_URL)")
	fs.BoolVar(&f.asJSON, "json", false, "print the markets as a JSON array")
	fs.IntVar(&f.limit, "limit", 0, "print at most `N` markets (0: all)")
	fs.BoolVar(&f.activeOnly, "active-only", false, "only markets that are active and neither closed nor archived")
	cmd.RunE = func(*cobra.Command, []string) error { return listMarkets(e, f) }
	return cmd
}

// listMarkets runs "mmbot markets" once its flags are parsed into f.
func listMarkets(e *env, f marketsFlags) error {
	if f.clobURL == "" {
		f.clobURL = e.getenv("MMBOT_EXCHANGE_CLOB_URL")
	}
	if f.catalogURL == "" {
		f.catalogURL = e.getenv("MMBOT_EXCHANGE_CATALOG_URL")
	}
	if f.clobURL == "" {
		return usagef("no --clob-url given (nor $MMBOT_EXCHANGE_CLOB_URL)")
	}
	if f.limit < 0 {
		return usagef("--limit %d: want 0 or more", f.limit)
	}
	// A wait is never silent: each retry says why and for how long.
	retried := func(endpoint string, attempt int, delay time.Duration, err error) {
		fmt.Fprintf(e.stderr, "mmbot markets: %s failed (attempt %d: %v); retrying in %s\n", endpoint, attempt, err, delay.Round(time.Millisecond))
	}
	client, err := exchange.NewClient(exchange.Endpoints{Catalog: f.catalogURL, CLOB: f.clobURL},
		exchange.WithUserAgent("mmbot/"+version), exchange.WithObserver(exchange.Observer{Retry: retried}),
		exchange.WithRetryBudget(interactiveRetryBudget))
	if err != nil {
		return usagef("%v", err)
	}
	var list []exchange.Market
	for m, err := range client.AllMarkets(e.ctx) {
		if err != nil {
			return fmt.Errorf("listing markets: %w", err)
		}
		if f.activeOnly && (!m.Active || m.Closed || m.Archived) {
			continue
		}
		list = append(list, m)
		if f.limit > 0 && len(list) == f.limit {
			break
		}
	}
	if f.asJSON {
		if list == nil {
			list = []exchange.Market{}
		}
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(list)
	}
	return printMarkets(e.stdout, list)
}

// marketsQuestionWidth is where the question, the last column, is cut.
const marketsQuestionWidth = 40

// printMarkets writes the aligned table. The condition id is whole, so that
// it can be pasted into markets.condition_ids; the question comes last, so
// that a narrow terminal wraps only it.
func printMarkets(w io.Writer, list []exchange.Market) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CONDITION ID\tTICK\tMIN SIZE\tNEG RISK\tRWD MIN SIZE\tMAX SPREAD\tDAILY RATE\tACCEPTING\tQUESTION")
	for i := range list {
		m := &list[i]
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
			m.ConditionID, m.MinimumTickSize.String(), m.MinimumOrderSize.String(), marketsYesNo(m.NegRisk),
			m.Rewards.MinSize.String(), m.Rewards.MaxSpread.String(), m.Rewards.DailyRate().String(),
			marketsYesNo(m.AcceptingOrders), marketsTruncate(marketsOneLine(m.Question), marketsQuestionWidth))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, plural(len(list), "market"))
	return err
}

// marketsTruncate cuts s to at most n runes, marking the cut with an ellipsis.
func marketsTruncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// marketsOneLine replaces tabs and line breaks, which would break the table.
func marketsOneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func marketsYesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
