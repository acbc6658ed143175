package main

import (
	"net/http"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

func TestBusiestWindow(t *testing.T) {
	t0 := time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	cases := []struct {
		name   string
		xs     []timedUnits
		w      time.Duration
		want   int
		wantAt time.Time
	}{
		{"none", nil, time.Second, 0, time.Time{}},
		{"one", []timedUnits{{at(5), 3}}, time.Second, 3, at(5)},
		{"closed window: both ends count", []timedUnits{{at(0), 1}, {at(1000), 1}}, time.Second, 2, at(0)},
		{"a nanosecond past the window", []timedUnits{{at(0), 1}, {at(1000).Add(time.Nanosecond), 1}}, time.Second, 1, at(0)},
		{"unsorted input", []timedUnits{{at(2500), 4}, {at(0), 1}, {at(2000), 2}, {at(100), 1}}, time.Second, 6, at(2000)},
		{"weights beat counts", []timedUnits{{at(0), 1}, {at(10), 1}, {at(20), 1}, {at(5000), 15}}, time.Second, 15, at(5000)},
		{"sliding, not fixed buckets", []timedUnits{{at(900), 5}, {at(1100), 5}, {at(2500), 1}}, time.Second, 10, at(900)},
		{"ten-minute window", []timedUnits{{at(0), 100}, {at(599_000), 100}, {at(601_000), 100}}, 10 * time.Minute, 200, at(0)},
	}
	for _, c := range cases {
		n, s := busiestWindow(c.xs, c.w)
		if n != c.want || !s.Equal(c.wantAt) {
			t.Errorf("%s: %d at %v, want %d at %v", c.name, n, s, c.want, c.wantAt)
		}
	}
}

func TestSoakCapsCount(t *testing.T) {
	t0 := time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC)
	reqs := []soakRequest{
		{t0, http.MethodPost, "/clob/orders", 200, 15},
		{t0.Add(time.Second), http.MethodPost, "/clob/orders", 200, 5},
		{t0.Add(2 * time.Second), http.MethodDelete, "/clob/order", 200, 0},
		{t0.Add(2 * time.Second), http.MethodPost, "/clob/books", 200, 0},
		{t0.Add(3 * time.Second), http.MethodGet, "/clob/data/order/0xab", 200, 0},
		{t0.Add(4 * time.Second), http.MethodGet, "/data/trades", 200, 0},
		{t0.Add(4 * time.Second), http.MethodGet, "/catalog/markets/12", 200, 0},
		{t0.Add(4 * time.Second), http.MethodGet, "/catalog/events", 200, 0},
		{t0.Add(20 * time.Second), http.MethodGet, "/clob/", 200, 0},
	}
	want := map[string]int{
		"clob general": 5, "POST /books": 1, "GET / (health)": 1, "POST /orders burst": 20, "POST /orders sustained": 20,
		"DELETE /order burst": 1, "DELETE /order sustained": 1, "data general": 1, "data GET /trades": 1,
		"catalog general": 2, "catalog GET /events": 1, "catalog GET /markets": 1, "catalog events+markets": 2, "catalog GET /tags": 0,
	}
	for _, u := range countCaps(soakCaps(), reqs) {
		w, ok := want[u.name]
		if !ok {
			t.Errorf("unexpected cap %q", u.name)
			continue
		}
		if u.busiest != w {
			t.Errorf("%s: busiest %d, want %d", u.name, u.busiest, w)
		}
		delete(want, u.name)
	}
	for name := range want {
		t.Errorf("cap %q not counted", name)
	}
}

func TestFillDelays(t *testing.T) {
	t0 := time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC)
	d := decimal.RequireFromString
	trades := []soakTrade{
		{t0.Add(1500 * time.Millisecond), "0xa", d("4")}, // second fill of a: cumulative 7
		{t0, "0xa", d("3")},
		{t0.Add(200 * time.Millisecond), "0xb", d("10")},
		{t0.Add(9 * time.Second), "0xc", d("1")}, // never booked
	}
	books := []soakBooking{
		{"0xa", d("7"), t0.Add(2 * time.Second)}, // both fills of a booked at once
		{"0xb", d("10"), t0.Add(1 * time.Second)},
	}
	delays, unbooked := fillDelays(trades, books)
	want := []time.Duration{2 * time.Second, 800 * time.Millisecond, 500 * time.Millisecond}
	if len(delays) != len(want) {
		t.Fatalf("delays %v, want %v", delays, want)
	}
	for i := range want {
		if delays[i] != want[i] {
			t.Errorf("delay %d: %v, want %v", i, delays[i], want[i])
		}
	}
	if len(unbooked) != 1 || unbooked[0].order != "0xc" {
		t.Errorf("unbooked %v, want the fill of 0xc", unbooked)
	}
	ds := []time.Duration{5, 1, 4, 2, 3, 6, 7, 8, 9, 10}
	for _, c := range []struct {
		p    float64
		want time.Duration
	}{{50, 5}, {99, 10}, {10, 1}, {100, 10}, {0, 1}} {
		if got := percentile(ds, c.p); got != c.want {
			t.Errorf("p%v = %v, want %v", c.p, got, c.want)
		}
	}
	if percentile(nil, 50) != 0 {
		t.Error("percentile of nothing is not 0")
	}
}
