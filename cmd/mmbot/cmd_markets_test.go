package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mmbot/mmbot/configs"
	"github.com/mmbot/mmbot/exchange"
)

// marketsPages are two pages of GET /markets.
var marketsPages = map[string]string{
	"MA==": `{"data":[
	  {"condition_id":"0x5f0c3c0b0d3b7c7a2f8e1b7a0f58b1d7e2c3f4a5b6c7d8e9f0a1b2c3d4e5f6a7","question":"Will it rain in Paris on June 30?","active":true,"accepting_orders":true,
	   "minimum_tick_size":0.01,"minimum_order_size":5,"neg_risk":false,
	   "rewards":{"rates":[{"asset_address":"0xa","rewards_daily_rate":20},{"asset_address":"0xb","rewards_daily_rate":5.5}],"min_size":50,"max_spread":3.5}},
	  {"condition_id":"0xclosed","question":"Closed\tmarket\nwith breaks","active":true,"closed":true,"minimum_tick_size":0.001,"minimum_order_size":10,"neg_risk":true,
	   "rewards":{"rates":[],"min_size":0,"max_spread":0}}
	 ],"next_cursor":"Mg==","limit":2,"count":2}`,
	"Mg==": `{"data":[
	  {"condition_id":"0xc3","question":"A very long question that goes on and on well past the width of the column","active":true,"accepting_orders":false,
	   "minimum_tick_size":"0.0001","minimum_order_size":1,"neg_risk":true,"rewards":{"rates":[{"asset_address":"0xa","rewards_daily_rate":"1"}],"min_size":5,"max_spread":1}}
	 ],"next_cursor":"LTE=","limit":2,"count":1}`,
}

// marketsServer serves marketsPages under /clob and returns the base URL.
func marketsServer(t *testing.T) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /clob/markets", func(w http.ResponseWriter, r *http.Request) {
		page, ok := marketsPages[r.URL.Query().Get("next_cursor")]
		if !ok {
			w.WriteHeader(400)
			_, _ = io.WriteString(w, `{"error":"bad cursor"}`)
			return
		}
		_, _ = io.WriteString(w, page)
	})
	mux.HandleFunc("GET /broken/markets", func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(404)
		_, _ = io.WriteString(w, `{"error":"no such thing"}`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}

func marketsEnv(vars map[string]string) (*env, *bytes.Buffer, *bytes.Buffer) {
	var out, errb bytes.Buffer
	return &env{ctx: context.Background(), stdout: &out, stderr: &errb, stdin: strings.NewReader(""),
		getenv: func(k string) string { return vars[k] }}, &out, &errb
}

func TestMarketsTable(t *testing.T) {
	base := marketsServer(t)
	tests := []struct {
		name string
		args []string
		vars map[string]string
		want string
	}{
		{
			name: "all pages",
			args: []string{"--clob-url", base + "/clob"},
			want: `CONDITION ID                                                        TICK    MIN SIZE  NEG RISK  RWD MIN SIZE  MAX SPREAD  DAILY RATE  ACCEPTING  QUESTION
0x5f0c3c0b0d3b7c7a2f8e1b7a0f58b1d7e2c3f4a5b6c7d8e9f0a1b2c3d4e5f6a7  0.01    5         no        50            3.5         25.5        yes        Will it rain in Paris on June 30?
0xclosed                                                            0.001   10        yes       0             0           0           no         Closed market with breaks
0xc3                                                                0.0001  1         yes       5             1           1           no         A very long question that goes on and o…
3 markets
`,
		},
		{
			name: "active only, url from the environment",
			args: []string{"--active-only"},
			vars: map[string]string{"MMBOT_EXCHANGE_CLOB_URL": base + "/clob", "MMBOT_EXCHANGE_CATALOG_URL": base + "/catalog"},
			want: `CONDITION ID                                                        TICK    MIN SIZE  NEG RISK  RWD MIN SIZE  MAX SPREAD  DAILY RATE  ACCEPTING  QUESTION
0x5f0c3c0b0d3b7c7a2f8e1b7a0f58b1d7e2c3f4a5b6c7d8e9f0a1b2c3d4e5f6a7  0.01    5         no        50            3.5         25.5        yes        Will it rain in Paris on June 30?
0xc3                                                                0.0001  1         yes       5             1           1           no         A very long question that goes on and o…
2 markets
`,
		},
		{
			name: "limit",
			args: []string{"--clob-url", base + "/clob", "--catalog-url", base + "/catalog", "--limit", "1"},
			want: `CONDITION ID                                                        TICK  MIN SIZE  NEG RISK  RWD MIN SIZE  MAX SPREAD  DAILY RATE  ACCEPTING  QUESTION
0x5f0c3c0b0d3b7c7a2f8e1b7a0f58b1d7e2c3f4a5b6c7d8e9f0a1b2c3d4e5f6a7  0.01  5         no        50            3.5         25.5        yes        Will it rain in Paris on June 30?
1 market
`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, out, _ := marketsEnv(tt.vars)
			if err := cmdMarkets(e, tt.args); err != nil {
				t.Fatal(err)
			}
			if out.String() != tt.want {
				t.Errorf("output:\n%s\nwant:\n%s", out.String(), tt.want)
			}
			// The first column is the whole id: it pastes into the config.
			for _, line := range strings.Split(out.String(), "\n")[1:] {
				if id, _, _ := strings.Cut(line, " "); strings.HasPrefix(id, "0x5f") {
					if _, err := configs.Load(configs.LoadOptions{Environ: []string{"MMBOT_EXCHANGE_EMBEDDED_SIM=true", "MMBOT_MARKETS_CONDITION_IDS=" + id}}); err != nil {
						t.Errorf("the id %q does not load as markets.condition_ids: %v", id, err)
					}
				}
			}
		})
	}
}

func TestMarketsJSON(t *testing.T) {
	base := marketsServer(t)
	e, out, _ := marketsEnv(nil)
	if err := cmdMarkets(e, []string{"--clob-url", base + "/clob", "--json", "--active-only"}); err != nil {
		t.Fatal(err)
	}
	var got []exchange.Market
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("output is not a JSON list of markets: %v\n%s", err, out.String())
	}
	if len(got) != 2 || got[0].Rewards.DailyRate().String() != "25.5" || got[1].ConditionID != "0xc3" || !got[1].MinimumTickSize.Equal(exchange.MustNumber("0.0001").Decimal) {
		t.Errorf("decoded %+v", got)
	}
	if !strings.Contains(out.String(), `"minimum_tick_size": 0.01`) {
		t.Errorf("numbers must stay JSON numbers:\n%s", out.String())
	}

	// an empty list is [] rather than null
	e, out, _ = marketsEnv(nil)
	if err := cmdMarkets(e, []string{"--clob-url", base + "/clob", "--json", "--limit", "0", "--active-only"}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "[") {
		t.Errorf("output %q", out.String())
	}
}

func TestMarketsErrors(t *testing.T) {
	base := marketsServer(t)
	tests := []struct {
		name      string
		args      []string
		usage     bool
		wantInErr string
	}{
		{"no clob url", nil, true, "no --clob-url given"},
		{"bad flag", []string{"--clob-url", base, "--nope"}, true, "nope"},
		{"negative limit", []string{"--clob-url", base, "--limit", "-1"}, true, "--limit -1"},
		{"bad url", []string{"--clob-url", "ftp://x"}, true, "scheme"},
		{"stray argument", []string{"--clob-url", base, "extra"}, true, "extra"},
		{"server error", []string{"--clob-url", base + "/broken"}, false, "no such thing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, out, _ := marketsEnv(nil)
			err := cmdMarkets(e, tt.args)
			if err == nil {
				t.Fatal("no error")
			}
			var u *usageError
			if errors.As(err, &u) != tt.usage || !strings.Contains(err.Error(), tt.wantInErr) {
				t.Errorf("err = %v (usage %v), want usage %v containing %q", err, errors.As(err, &u), tt.usage, tt.wantInErr)
			}
			if tt.name == "server error" && !errors.Is(err, exchange.ErrNotFound) {
				t.Errorf("server error does not match ErrNotFound: %v", err)
			}
			if out.Len() != 0 {
				t.Errorf("printed %q on error", out.String())
			}
		})
	}
	e, _, errb := marketsEnv(nil)
	if err := cmdMarkets(e, []string{"--help"}); err != nil || !strings.Contains(errb.String(), "--active-only") {
		t.Errorf("--help: %v, %q", err, errb.String())
	}
}

// TestMarketsSaysWhyItWaits: a throttled page is retried after its
// Retry-After, and the wait is said on stderr, not silent.
func TestMarketsSaysWhyItWaits(t *testing.T) {
	t.Parallel()
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n++
		if n == 1 {
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
			_, _ = io.WriteString(w, `{"error":"slow down"}`)
			return
		}
		_, _ = io.WriteString(w, marketsPages["Mg=="])
	}))
	defer srv.Close()
	e, out, errb := marketsEnv(nil)
	if err := listMarkets(e, marketsFlags{clobURL: srv.URL + "/clob"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "0xc3") {
		t.Errorf("stdout %q", out.String())
	}
	if s := errb.String(); !strings.Contains(s, "GET /markets failed") || !strings.Contains(s, "429") || !strings.Contains(s, "retrying in 1s") {
		t.Errorf("stderr %q does not say why and how long it waits", s)
	}
}

// TestMarketsGivesUpOnAHugeRetryAfter: an exchange asking for an hour is
// not waited out three capped minutes: mmbot markets gives up at once
// (its retry budget is interactiveRetryBudget) and says what the exchange
// asked and how long it waited.
func TestMarketsGivesUpOnAHugeRetryAfter(t *testing.T) {
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n++
		w.Header().Set("Retry-After", "3600")
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = io.WriteString(w, `{"error":"slow down"}`)
	}))
	defer srv.Close()
	e, _, _ := marketsEnv(nil)
	start := time.Now()
	err := listMarkets(e, marketsFlags{clobURL: srv.URL + "/clob"})
	if err == nil {
		t.Fatal("listed markets from an exchange that only throttles")
	}
	for _, want := range []string{"HTTP 429", "gave up after 1 attempt and 0s of waiting", "the exchange asked to wait 1h0m0s", "retry budget of 10s"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if took := time.Since(start); took > interactiveRetryBudget || n != 1 {
		t.Errorf("%d requests in %s, want 1 and under %s", n, took, interactiveRetryBudget)
	}
}

// TestMarketsHintsAtClobPath: --clob-url without /clob gets the exchange's
// 404, and the error says the address usually ends in /clob.
func TestMarketsHintsAtClobPath(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/clob/") {
			w.WriteHeader(http.StatusNotFound)
			_, _ = io.WriteString(w, `{"error":"not found"}`)
			return
		}
		_, _ = io.WriteString(w, marketsPages["Mg=="])
	}))
	defer srv.Close()
	e, _, _ := marketsEnv(nil)
	err := listMarkets(e, marketsFlags{clobURL: srv.URL})
	if want := "it usually ends in /clob (try " + srv.URL + "/clob)"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want it to contain %q", err, want)
	}
}
