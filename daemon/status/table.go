package status

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/shopspring/decimal"
)

// noteWidth bounds the NOTE column of the status table.
const noteWidth = 60

// WriteTable prints the document as `mmbot status` and the live table of
// `mmbot run` show it: a header line, one aligned row per market, then the
// totals, collateral, rates and the kill switch. Times are shown in loc.
func (d *Status) WriteTable(w io.Writer, loc *time.Location) error {
	clock := func(t time.Time) string { return t.In(loc).Format("15:04:05") }
	var b strings.Builder
	ready := "ready"
	if !d.Ready {
		ready = "not ready: " + d.NotReady
	}
	fmt.Fprintf(&b, "mmbot %s  up %s  %s  %s  pid %d  cycles %d (%d failed, last %s)\n", clock(d.Time),
		Span(secondsDuration(d.UptimeSeconds)), strings.ReplaceAll(d.Mode, "_", "-"), ready, d.PID,
		d.Cycles, d.CycleErrors, secondsDuration(d.LastCycleSeconds))

	var rows strings.Builder
	tw := tabwriter.NewWriter(&rows, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "MARKET\tFAIR\tBID\tASK\tYES\tNO\tNET\tOPEN\tREALIZED\tMARKED\tCOLLATERAL\tBOOK AGE\tNOTE")
	for i := range d.Markets {
		m := &d.Markets[i]
		name := m.Slug
		if name == "" {
			name = ShortID(m.ConditionID)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\n", Trunc(name, 28), orDash(m.Fair), orDash(m.Bid), orDash(m.Ask),
			m.Position.Yes, m.Position.No, m.Position.Net, m.OpenOrders, Signed(decOf(m.PnL.Realized)), Signed(decOf(m.PnL.Marked)),
			decOf(m.Collateral.InUse).StringFixed(2), secondsDuration(m.BookAgeSeconds), Trunc(marketNote(m, clock), noteWidth))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, line := range strings.SplitAfter(rows.String(), "\n") {
		if line != "" {
			b.WriteString(strings.TrimRight(line, " \n") + "\n") // no padding after an empty NOTE
		}
	}
	if len(d.Markets) == 0 {
		b.WriteString("(no market yet)\n")
	}

	t := &d.Totals
	fmt.Fprintf(&b, "pnl %s marked, %s realized  fills %d  volume %s  notional %s  live orders %d  placed %d (refused %d)  cancels %d (failed %d)  risk rejections %d%s\n",
		Signed(decOf(t.MarkedPnL)), Signed(decOf(t.RealizedPnL)), t.Fills, t.Volume, decOf(t.Notional).StringFixed(2), t.LiveOrders,
		t.OrdersPlaced, t.OrdersRefused, t.Cancels, t.CancelsFailed, t.RiskRejections, CountsSuffix(t.RiskRejectionsByReason))
	if payingMarkets(d) > 0 {
		fmt.Fprintf(&b, "rewards (estimated) %s earned, %s a day, %s%% mean share of the %d paying markets' scores\n",
			decOf(t.Rewards.Earned).StringFixed(4), strconv.FormatFloat(t.Rewards.Daily, 'f', 2, 64), strconv.FormatFloat(100*t.Rewards.Share, 'f', 2, 64),
			payingMarkets(d))
	}
	if len(t.HeldBackByLimit) > 0 {
		fmt.Fprintf(&b, "quotes held back by limits %s\n", CountsList(t.HeldBackByLimit))
	}
	c := &d.Collateral
	limit := "no limit"
	if c.Limit != nil {
		limit = "limit " + *c.Limit
	}
	fmt.Fprintf(&b, "collateral in use %s (open BUY orders %s, positions %s; %s)\n", decOf(c.InUse).StringFixed(2),
		decOf(c.Orders).StringFixed(2), decOf(c.Positions).StringFixed(2), limit)
	fmt.Fprintf(&b, "orders  %s\ncancels %s\nthrottled (429) %d, retried reads %d\n", rateLine(&d.Rates.Orders), rateLine(&d.Rates.Cancels),
		d.Rates.HTTP429, d.Rates.Retries)

	k := &d.KillSwitch
	switch {
	case k.Tripped:
		since := ""
		if k.Since != nil {
			since = " since " + clock(*k.Since)
		}
		fmt.Fprintf(&b, "KILL SWITCH TRIPPED%s: %s: %s (quoting stopped; after fixing the cause, reset it with SIGUSR1: kill -USR1 %d)\n",
			since, k.Reason, k.Detail, d.PID)
	case k.LastReset != nil:
		fmt.Fprintf(&b, "kill switch: armed (last reset by %s, cleared %s)\n", k.LastReset.By, orWord(k.LastReset.ClearedReason, "nothing"))
	default:
		b.WriteString("kill switch: armed\n")
	}
	if e := d.LastError; e != nil {
		fmt.Fprintf(&b, "last cycle error %s: %s\n", clock(e.At), e.Message)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// payingMarkets counts the markets with a liquidity-reward program.
func payingMarkets(d *Status) int {
	n := 0
	for i := range d.Markets {
		if p := d.Markets[i].Rewards.Pays; p != nil && *p {
			n++
		}
	}
	return n
}

// marketNote is the NOTE column: why the market is not quoted, else its
// last error.
func marketNote(m *Market, clock func(time.Time) string) string {
	switch {
	case m.Stopped != "":
		return "stopped: " + m.Stopped
	case m.Refused != "":
		return "refused: " + m.Refused
	case m.Stale:
		return "stale book"
	case m.Limit != "":
		return "held back: " + m.Limit
	case m.LastError != nil:
		return "error " + clock(m.LastError.At) + ": " + m.LastError.Message
	}
	return ""
}

// rateLine is "1.2/s over 10s (post_order_burst 12/2400 per 10s, post_order_sustained 720/24000 per 10m)".
func rateLine(r *Rate) string {
	caps := make([]string, 0, len(r.Caps))
	for _, c := range r.Caps {
		caps = append(caps, fmt.Sprintf("%s %d/%d per %s", c.Bucket, c.Used, c.Requests, window(secondsDuration(c.WindowSeconds))))
	}
	return fmt.Sprintf("%s/s over %s (%s)", strconv.FormatFloat(r.PerSecond, 'f', 1, 64), secondsDuration(r.WindowSeconds).Round(time.Second),
		strings.Join(caps, ", "))
}

// window formats a cap's window: 10s, 10m, 1h, 1m30s.
func window(d time.Duration) string {
	switch {
	case d >= time.Hour && d%time.Hour == 0:
		return fmt.Sprintf("%dh", d/time.Hour)
	case d >= time.Minute && d%time.Minute == 0:
		return fmt.Sprintf("%dm", d/time.Minute)
	}
	return d.String()
}

func orDash(s *string) string {
	if s == nil {
		return "-"
	}
	return *s
}

func orWord(s, word string) string {
	if s == "" {
		return word
	}
	return s
}

// decOf reads a decimal string of the document (zero when it is not one).
func decOf(s string) decimal.Decimal {
	d, err := decimal.NewFromString(s)
	if err != nil {
		return decimal.Zero
	}
	return d
}

func secondsDuration(s float64) time.Duration {
	return time.Duration(s * float64(time.Second)).Round(time.Millisecond)
}
