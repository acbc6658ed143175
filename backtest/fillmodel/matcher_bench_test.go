package fillmodel

import (
	"strconv"
	"testing"
	"time"

	"github.com/mmbot/mmbot/backtest/internal/fixture"
	"github.com/mmbot/mmbot/backtest/recording"
	"github.com/mmbot/mmbot/exchange"
)

// benchBooks returns n books of 20 levels a side around 0.50 whose sizes
// change from one to the next, as a live market's do.
func benchBooks(n int) []recording.FixedBook {
	books := make([]recording.FixedBook, n)
	for i := range books {
		for l := 0; l < 20; l++ {
			size := exchange.Fixed((100 + (i*7+l*13)%50) * exchange.FixedScale)
			books[i].Bids = append(books[i].Bids, recording.Level{Price: exchange.Fixed(490_000 - l*10_000), Size: size})
			books[i].Asks = append(books[i].Asks, recording.Level{Price: exchange.Fixed(510_000 + l*10_000), Size: size})
		}
	}
	return books
}

// quotingMatcher returns a Matcher with four resting orders that sit deep
// in their queues.
func quotingMatcher(tb testing.TB, books []recording.FixedBook) *Matcher {
	m, err := NewMatcher("tok", MatcherConfig{Latency: Latency{Order: Constant(time.Millisecond), Cancel: Constant(time.Millisecond)}})
	if err != nil {
		tb.Fatal(err)
	}
	m.OnBook(&books[0], fixture.T0)
	for i, o := range []VirtualOrder{
		{ID: "b1", Side: exchange.Buy, Price: 480_000, Size: 10 * exchange.FixedScale},
		{ID: "b2", Side: exchange.Buy, Price: 470_000, Size: 10 * exchange.FixedScale},
		{ID: "s1", Side: exchange.Sell, Price: 520_000, Size: 10 * exchange.FixedScale},
		{ID: "s2", Side: exchange.Sell, Price: 530_000, Size: 10 * exchange.FixedScale},
	} {
		if _, err := m.Place(o, fixture.T0.Add(time.Duration(i))); err != nil {
			tb.Fatal(err)
		}
	}
	m.Advance(fixture.T0.Add(time.Second))
	return m
}

func TestMatcherSteadyStateDoesNotAllocate(t *testing.T) {
	books := benchBooks(64)
	m := quotingMatcher(t, books)
	now := fixture.T0.Add(2 * time.Second)
	i := 0
	allocs := testing.AllocsPerRun(1000, func() {
		i++
		now = now.Add(time.Millisecond)
		m.OnBook(&books[i%len(books)], now)
		m.OnTrade(MatchTrade{Price: 490_000, Size: exchange.FixedScale, TakerSide: exchange.Sell}, now)
		m.OnTrade(MatchTrade{Price: 480_000, Size: 1000, TakerSide: exchange.Sell}, now)
	})
	if allocs != 0 {
		t.Errorf("OnBook+OnTrade allocate %.1f times per event group", allocs)
	}
	if m.Open() != 4 {
		t.Fatalf("orders filled during the allocation test: %d open", m.Open())
	}
	// Requoting (cancel one order, place its replacement) does not allocate
	// once the Matcher has warmed up either.
	k := 0
	allocs = testing.AllocsPerRun(1000, func() {
		now = now.Add(10 * time.Millisecond)
		if _, err := m.Cancel(ids[k%2], now); err != nil {
			t.Fatal(err)
		}
		m.Advance(now.Add(time.Millisecond))
		k++
		if _, err := m.Place(VirtualOrder{ID: ids[k%2], Side: exchange.Buy, Price: 460_000, Size: exchange.FixedScale}, now); err != nil {
			t.Fatal(err)
		}
		m.OnBook(&books[k%len(books)], now.Add(2*time.Millisecond))
	})
	if allocs != 0 {
		t.Errorf("cancel/replace allocates %.1f times", allocs)
	}
}

var ids = [2]string{"b2", "b3"}

// BenchmarkMatcher feeds a quoting matcher a stream of book snapshots and
// trades (two books per trade, as in recorded data) with a requote every
// 50 events.
func BenchmarkMatcher(b *testing.B) {
	books := benchBooks(256)
	m := quotingMatcher(b, books)
	now := fixture.T0.Add(2 * time.Second)
	var names [64]string
	for i := range names {
		names[i] = "q" + strconv.Itoa(i)
	}
	live := "b2"
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		now = now.Add(time.Millisecond)
		switch {
		case i%50 == 49:
			if _, err := m.Cancel(live, now); err != nil {
				b.Fatal(err)
			}
			live = names[(i/50)%len(names)]
			if _, err := m.Place(VirtualOrder{ID: live, Side: exchange.Buy, Price: 470_000, Size: 10 * exchange.FixedScale}, now); err != nil {
				b.Fatal(err)
			}
		case i%3 == 2:
			m.OnTrade(MatchTrade{Price: 490_000, Size: exchange.FixedScale, TakerSide: exchange.Sell}, now)
		default:
			m.OnBook(&books[i%len(books)], now)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkFixedBookSetFrom measures converting a recorded book (decimal
// levels) into the Matcher's Fixed form.
func BenchmarkFixedBookSetFrom(b *testing.B) {
	src := &recording.Book{TokenID: "tok"}
	for l := 0; l < 20; l++ {
		src.Bids = append(src.Bids, exchange.PriceLevel{Price: exchange.Fixed(490_000 - l*10_000).Decimal(), Size: fixture.Dec("123.45")})
		src.Asks = append(src.Asks, exchange.PriceLevel{Price: exchange.Fixed(510_000 + l*10_000).Decimal(), Size: fixture.Dec("67.8")})
	}
	var fb recording.FixedBook
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if err := fb.SetFrom(src); err != nil {
			b.Fatal(err)
		}
	}
}
