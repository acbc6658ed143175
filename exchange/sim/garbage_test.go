package sim

import (
	"errors"
	"testing"

	"github.com/mmbot/mmbot/exchange"
)

// TestGarbageBooks: with the garbage-books fault on a market, POST /books
// answers a book of it that exchange.ValidateBook refuses, for the reason
// that matches each kind, while the books of the other markets stay
// honest; the exchange's own books are untouched. GarbageRate 1 spoils
// every book with a drawn kind.
func TestGarbageBooks(t *testing.T) {
	env := setup(t, 1)
	c := env.accs[0].client
	bad, good := env.ex.markets[0].m, env.ex.markets[1].m
	toks := []string{bad.TokenIDs[0], bad.TokenIDs[1], good.TokenIDs[0]}
	want := map[string]string{
		"negative_size": exchange.InvalidSize, "huge_size": exchange.InvalidSize,
		"zero_tick": exchange.InvalidTick, "negative_tick": exchange.InvalidTick, "odd_tick": exchange.InvalidTick, "tiny_tick": exchange.InvalidTick,
		"huge_min_size": exchange.InvalidMinSize, "negative_price": exchange.InvalidPrice, "price_above_one": exchange.InvalidPrice,
		"unsorted": exchange.InvalidUnsorted, "crossed": exchange.InvalidCrossed,
	}
	if len(want) != len(GarbageKinds) {
		t.Fatalf("%d kinds tested, %d exist", len(want), len(GarbageKinds))
	}
	for _, kind := range GarbageKinds {
		if err := env.ex.SetFaults(Faults{GarbageMarkets: []string{bad.ConditionID}, GarbageKind: kind}); err != nil {
			t.Fatal(err)
		}
		books, err := c.Books(t.Context(), toks)
		if err != nil || len(books) != 3 {
			t.Fatalf("%s: %d books, err %v", kind, len(books), err)
		}
		for i, b := range books {
			err := exchange.ValidateBook(&b)
			if i == 2 {
				if err != nil {
					t.Errorf("%s: the book of another market was spoilt: %v", kind, err)
				}
				continue
			}
			var ve *exchange.ValidationError
			if !errors.As(err, &ve) || ve.Reason != want[kind] {
				t.Errorf("%s: token %d: err %v, want reason %s", kind, i, err, want[kind])
			}
		}
		own, err := env.ex.Book(toks[0])
		if err != nil || exchange.ValidateBook(&own) != nil {
			t.Errorf("%s: the exchange's own book: %v / %v", kind, err, exchange.ValidateBook(&own))
		}
	}
	if err := env.ex.SetFaults(Faults{GarbageRate: 1}); err != nil {
		t.Fatal(err)
	}
	books, err := c.Books(t.Context(), toks)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range books {
		if exchange.ValidateBook(&b) == nil {
			t.Errorf("GarbageRate 1 left the book of %s honest", b.AssetID)
		}
	}
	if err := env.ex.SetFaults(Faults{GarbageKind: "nonsense"}); err == nil {
		t.Error("an unknown garbage kind was accepted")
	}
}
