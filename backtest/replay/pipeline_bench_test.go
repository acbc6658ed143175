package replay

import (
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/mmbot/mmbot/backtest/accounting"
	"github.com/mmbot/mmbot/backtest/fillmodel"
	"github.com/mmbot/mmbot/backtest/internal/synthetic"
	"github.com/mmbot/mmbot/backtest/recording"
	"github.com/mmbot/mmbot/exchange"
)

// pipeline is the part of a replay that this package owns: recorded event →
// Fixed form → Matcher → Accumulator, with a stand-in for the strategy that
// requotes one order every 20 events. It shows the cost per event that the
// replay venue will add to the strategy's own.
type pipeline struct {
	m     map[string]*fillmodel.Matcher
	acc   *accounting.Accumulator
	tok   map[string]*accounting.TokenAcc
	book  recording.FixedBook
	n     int
	live  map[string]string
	names []string
}

func newPipeline(tb testing.TB) *pipeline {
	p := &pipeline{m: map[string]*fillmodel.Matcher{}, acc: accounting.NewAccumulator(accounting.AccumulatorConfig{}), tok: map[string]*accounting.TokenAcc{}, live: map[string]string{}}
	for i := 0; i < 64; i++ {
		p.names = append(p.names, "q"+strconv.Itoa(i))
	}
	return p
}

func (p *pipeline) feed(tb testing.TB, e recording.Event) {
	id := e.TokenID()
	m, ok := p.m[id]
	if !ok {
		var err error
		if m, err = fillmodel.NewMatcher(id, fillmodel.MatcherConfig{Latency: fillmodel.Latency{Order: fillmodel.Constant(time.Millisecond), Cancel: fillmodel.Constant(time.Millisecond)}}); err != nil {
			tb.Fatal(err)
		}
		p.m[id], p.tok[id] = m, p.acc.Token(id)
	}
	ta := p.tok[id]
	now := e.Time()
	var fills []fillmodel.Fill
	switch e.Kind {
	case recording.KindBook:
		if err := p.book.SetFrom(e.Book); err != nil {
			tb.Fatal(err)
		}
		fills = m.OnBook(&p.book, now)
		for _, f := range fills {
			ta.OnFill(f)
		}
		ta.OnBook(now, &p.book)
	case recording.KindTrade:
		mt, err := fillmodel.MatchTradeFrom(e.Trade)
		if err != nil {
			tb.Fatal(err)
		}
		for _, f := range m.OnTrade(mt, now) {
			ta.OnFill(f)
		}
	}
	p.n++
	if p.n%20 == 0 {
		if old, ok := p.live[id]; ok {
			if _, err := m.Cancel(old, now); err == nil {
				ta.OnCancel(now)
			}
		}
		o := fillmodel.VirtualOrder{ID: p.names[(p.n/20)%len(p.names)] + id, Side: exchange.Buy, Price: 470_000, Size: 10 * exchange.FixedScale}
		if _, err := m.Place(o, now); err == nil {
			ta.OnPlace(now, o)
			p.live[id] = o.ID
		}
	}
}

// BenchmarkReplayPipeline runs recorded events already in memory through
// the pipeline: conversion, fill model and metrics, no decoding.
func BenchmarkReplayPipeline(b *testing.B) {
	path := filepath.Join(b.TempDir(), "rec.gz")
	synthetic.WriteSimple(b, path, 20_000)
	_, evs, err := recording.ReadAll(path)
	if err != nil {
		b.Fatal(err)
	}
	p := newPipeline(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e := evs[i%len(evs)]
		if i >= len(evs) { // replay again, later in time
			e = shiftEvent(e, time.Duration(i/len(evs))*time.Hour)
		}
		p.feed(b, e)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkReplayFromFile adds reading the recording (gzip + decoding).
func BenchmarkReplayFromFile(b *testing.B) {
	path := filepath.Join(b.TempDir(), "rec.gz")
	const n = 20_000
	synthetic.WriteSimple(b, path, n)
	b.ReportAllocs()
	b.ResetTimer()
	events := 0
	for i := 0; i < b.N; i++ {
		p := newPipeline(b)
		r, err := recording.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		for e, err := range r.All() {
			if err != nil {
				b.Fatal(err)
			}
			p.feed(b, e)
			events++
		}
		_ = r.Close()
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
}

// shiftEvent returns e moved later by d (a shallow copy: levels shared).
func shiftEvent(e recording.Event, d time.Duration) recording.Event {
	switch e.Kind {
	case recording.KindBook:
		b := *e.Book
		b.Received = b.Received.Add(d)
		b.Exchange = b.Exchange.Add(d)
		return recording.BookEvent(&b)
	case recording.KindTrade:
		t := *e.Trade
		t.Received = t.Received.Add(d)
		t.Exchange = t.Exchange.Add(d)
		return recording.TradeEvent(&t)
	}
	return e
}
