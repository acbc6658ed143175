package loop

import (
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/exchange/clocktest"
	"github.com/mmbot/mmbot/strategy"
)

// concurrentSigner names each order by its token and size, refuses sizes
// of 13, and counts its calls; it is safe for concurrent use.
type concurrentSigner struct {
	workers int
	calls   atomic.Int64
}

func (s *concurrentSigner) SignWorkers() int { return s.workers }

func (s *concurrentSigner) SignOrder(m *strategy.Market, o *strategy.Order, t exchange.OrderType) (exchange.PlacementItem, string, error) {
	s.calls.Add(1)
	if o.Size.Equal(decimal.New(13, 0)) {
		return exchange.PlacementItem{}, "", errors.New("unlucky size")
	}
	h := fmt.Sprintf("0x%s-%s", o.TokenID, o.Size)
	return exchange.PlacementItem{OrderType: t, Order: exchange.SignedOrder{Salt: h, TokenID: o.TokenID, ConditionID: m.ConditionID}}, h, nil
}

// TestSignConcurrentKeepsPlanOrder: with a ConcurrentSigner the intents
// come back in the plan's order, and an order that cannot be signed is
// dropped and reported, as when signing one at a time.
func TestSignConcurrentKeepsPlanOrder(t *testing.T) {
	for _, workers := range []int{1, 2, 8} {
		s := &concurrentSigner{workers: workers}
		model, err := strategy.NewBands(strategy.BandsParams{Offsets: []float64{0.02}, Sizes: []float64{10}})
		if err != nil {
			t.Fatal(err)
		}
		l, err := New(Config{Markets: []strategy.Market{testMarket()}, Estimators: strategy.DefaultEstimatorParams(),
			Params: Params{Model: model}}, newFakeVenue(), s, newMemJournal(), clocktest.New(lt0), zerolog.Nop(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var places []placement
		for i := range 50 {
			places = append(places, placement{market: 0, order: strategy.Order{TokenID: "yes", Side: exchange.Buy,
				Price: decimal.New(45, -2), Size: decimal.New(int64(i+1), 0)}})
		}
		rep := &CycleReport{}
		intents := l.sign(places, rep)
		if got := s.calls.Load(); got != 50 {
			t.Fatalf("%d workers: %d signatures, want 50", workers, got)
		}
		if len(intents) != 49 || len(rep.Rejected) != 1 || rep.Rejected[0] != "sign" {
			t.Fatalf("%d workers: %d intents, rejected %v; want 49 and one sign rejection", workers, len(intents), rep.Rejected)
		}
		k := 0
		for i := range places {
			if i+1 == 13 {
				continue
			}
			want := fmt.Sprintf("0xyes-%d", i+1)
			if intents[k].Hash != want || intents[k].Item.Order.Salt != want || !intents[k].Size.Equal(places[i].order.Size) {
				t.Fatalf("%d workers: intent %d is %s, want %s (the plan's order)", workers, k, intents[k].Hash, want)
			}
			k++
		}
	}
}

// TestOldestSelects: oldest gives the k first orders by byAge, in order,
// as sorting them all would.
func TestOldestSelects(t *testing.T) {
	for n := range 40 {
		for _, k := range []int{-1, 0, 1, 2, 5, n - 1, n, n + 3} {
			s := make([]*liveOrder, n)
			for i := range s {
				// few distinct read times: the hash breaks the ties
				s[i] = &liveOrder{JournaledOrder: JournaledOrder{Intent: Intent{Hash: fmt.Sprintf("h%03d", (i*37)%101)}},
					lastRead: lt0.Add(time.Duration((i*7)%5) * time.Second)}
			}
			want := slices.Clone(s)
			slices.SortFunc(want, byAge)
			want = want[:max(min(k, n), 0)]
			got := oldest(s, k)
			if !slices.Equal(got, want) {
				t.Fatalf("n=%d k=%d: oldest gave %d orders, not the %d first by age", n, k, len(got), len(want))
			}
		}
	}
}
