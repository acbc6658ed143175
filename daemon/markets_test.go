package daemon

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/rs/zerolog"

	"github.com/mmbot/mmbot/assemble"
	"github.com/mmbot/mmbot/configs"
	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/internal/metrics"
	"github.com/mmbot/mmbot/strategy/loop"
)

// termsPage is one page of GET /markets: three binary markets, the second
// with a tick of 0.7, the third with a minimum size of 1e12.
const termsPage = `{"data":[
 {"condition_id":"0x01","market_slug":"good","active":true,"accepting_orders":true,"minimum_tick_size":"0.01","minimum_order_size":"5",
  "tokens":[{"token_id":"1","outcome":"Yes"},{"token_id":"2","outcome":"No"}]},
 {"condition_id":"0x02","market_slug":"odd-tick","active":true,"accepting_orders":true,"minimum_tick_size":"0.7","minimum_order_size":"5",
  "tokens":[{"token_id":"3","outcome":"Yes"},{"token_id":"4","outcome":"No"}]},
 {"condition_id":"0x03","market_slug":"huge-min","active":true,"accepting_orders":true,"minimum_tick_size":"0.001","minimum_order_size":"1e12",
  "tokens":[{"token_id":"5","outcome":"Yes"},{"token_id":"6","outcome":"No"}]}
],"next_cursor":"LTE="}`

// TestSelectionRefusesInvalidTerms: market selection leaves out a market
// whose terms are garbage, configured or picked, with one line and one
// count per market and reason, and keeps the others.
func TestSelectionRefusesInvalidTerms(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, termsPage) }))
	defer srv.Close()
	c, err := exchange.NewClient(exchange.Endpoints{CLOB: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	m, err := metrics.New(prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	o := &observer{log: zerolog.New(&buf), m: m}
	mc := configs.Markets{ConditionIDs: []string{"0x02"}, Auto: configs.MarketsAuto{Enabled: true, MaxMarkets: 5}}
	for range 2 { // a second selection (a retried start) logs nothing new
		got, err := assemble.SelectMarkets(context.Background(), c, &mc, o.marketRefused)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || got[0].ConditionID != "0x01" {
			t.Fatalf("selected %+v, want only 0x01", got)
		}
	}
	if n := strings.Count(buf.String(), "market refused at selection"); n != 2 {
		t.Errorf("%d lines, want one per bad market:\n%s", n, buf.String())
	}
	if v := testutil.ToFloat64(m.MarketDataRefused.WithLabelValues(exchange.InvalidTick)); v != 2 {
		t.Errorf("tick_size refusals counted %v, want 2 (two selections)", v)
	}
	if v := testutil.ToFloat64(m.MarketDataRefused.WithLabelValues(exchange.InvalidMinSize)); v != 2 {
		t.Errorf("min_size refusals counted %v, want 2", v)
	}
	mc = configs.Markets{ConditionIDs: []string{"0x02"}}
	if _, err := assemble.SelectMarkets(context.Background(), c, &mc, nil); err == nil || startRetryable(err) {
		t.Errorf("only a garbage market configured: err %v, want a permanent error", err)
	}
}

// TestStatusShowsRefusedMarket: the live status table says why a market is
// not quoted, and the cycle's refused books are counted by reason.
func TestStatusShowsRefusedMarket(t *testing.T) {
	st := loop.Status{Time: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC), Markets: []loop.MarketStatus{
		{ConditionID: "0x01", Slug: "good"},
		{ConditionID: "0x02", Slug: "bad", Refused: `exchange: book of token 4 refused (tick_size): tick size "0.7" is not one of 0.1, 0.01, 0.001, 0.0001`},
	}}
	var out bytes.Buffer
	doc := buildStatusDoc(&statusInput{Now: st.Time, Started: st.Time.Add(-time.Minute), Loop: &st,
		Base: func(time.Duration) rateSample { return rateSample{} }})
	if err := doc.WriteTable(&out, time.UTC); err != nil {
		t.Fatal(err)
	}
	var badLine string
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(l, "bad ") {
			badLine = l
		}
	}
	if !strings.Contains(badLine, "refused: ") || !strings.Contains(badLine, "tick_size") {
		t.Errorf("status line of the refused market %q; table:\n%s", badLine, out.String())
	}
	m, err := metrics.New(prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	o := &observer{m: m}
	o.OnCycle(&loop.CycleReport{Status: &st, BooksRefused: []string{exchange.InvalidTick, exchange.InvalidTick, exchange.InvalidSize}})
	if v := testutil.ToFloat64(m.MarketDataRefused.WithLabelValues(exchange.InvalidTick)); v != 2 {
		t.Errorf("tick_size refusals %v, want 2", v)
	}
}
