package state

import (
	"errors"
	"reflect"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
)

func TestIntentRoundTrip(t *testing.T) {
	s := newTestStore(t, Options{Account: "0xAbC"})
	o := testOrder(1, "tokA", exchange.Buy)
	mustUpdate(t, s, func(tx *Tx) error { return tx.PutIntent(o) })

	got, err := s.Order(o.Hash)
	if err != nil {
		t.Fatal(err)
	}
	o.State, o.UpdatedAt = Intent, o.CreatedAt
	o.Item.Owner = "" // the API key is never stored
	if !reflect.DeepEqual(normalise(got), normalise(o)) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", got, o)
	}
	if got.Item != o.Item {
		t.Fatalf("signed order lost: %+v", got.Item)
	}
	if _, err := s.Order("0xnope"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing order: %v", err)
	}
	err = s.Update(func(tx *Tx) error { return tx.PutIntent(o) })
	if !errors.Is(err, ErrOrderExists) {
		t.Fatalf("second PutIntent: %v", err)
	}
}

// normalise makes decimals comparable with DeepEqual after a JSON round trip.
func normalise(o Order) Order {
	for _, p := range []*decimal.Decimal{&o.Price, &o.Size, &o.SizeMatched} {
		*p = decimal.RequireFromString(p.String())
	}
	o.CreatedAt, o.SentAt, o.UpdatedAt = o.CreatedAt.UTC(), o.SentAt.UTC(), o.UpdatedAt.UTC()
	return o
}

func TestPutIntentValidation(t *testing.T) {
	s := newTestStore(t, Options{})
	cases := []struct {
		name string
		edit func(o *Order)
	}{
		{"empty hash", func(o *Order) { o.Hash = "" }},
		{"no token", func(o *Order) { o.TokenID = "" }},
		{"bad side", func(o *Order) { o.Side = "HOLD" }},
		{"bad type", func(o *Order) { o.OrderType = "IOC" }},
		{"zero price", func(o *Order) { o.Price = decimal.Zero }},
		{"negative size", func(o *Order) { o.Size = d("-1") }},
		{"matched over size", func(o *Order) { o.SizeMatched = d("11") }},
		{"not an intent", func(o *Order) { o.State = Live }},
		{"no creation time", func(o *Order) { o.CreatedAt = time.Time{} }},
	}
	for _, c := range cases {
		o := testOrder(1, "tokA", exchange.Buy)
		c.edit(&o)
		err := s.Update(func(tx *Tx) error { return tx.PutIntent(o) })
		if !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: err = %v, want ErrInvalid", c.name, err)
		}
	}
	if all, _ := s.Orders(OrderFilter{}); len(all) != 0 {
		t.Fatalf("invalid intents were stored: %d", len(all))
	}
}

func TestLifeCycle(t *testing.T) {
	s := newTestStore(t, Options{})
	o := testOrder(1, "tokA", exchange.Buy)
	now := t0.Add(time.Minute)
	steps := []struct {
		name    string
		fn      func(tx *Tx) error
		state   OrderState
		matched string
		wantErr error
	}{
		{"intent", func(tx *Tx) error { return tx.PutIntent(o) }, Intent, "0", nil},
		{"sent", func(tx *Tx) error { return tx.MarkSent(o.Hash, now) }, Sent, "0", nil},
		{"sent again", func(tx *Tx) error { return tx.MarkSent(o.Hash, now.Add(time.Second)) }, Sent, "0", nil},
		{"live", func(tx *Tx) error { return tx.ApplyResult(o.Hash, "X1", Live, decimal.Zero, "", now) }, Live, "0", nil},
		{"live with matched", func(tx *Tx) error { return tx.ApplyResult(o.Hash, "", Live, d("1"), "", now) }, Live, "0", ErrInvalid},
		{"partial", func(tx *Tx) error { return tx.ApplyResult(o.Hash, "X1", PartiallyFilled, d("4"), "", now) }, PartiallyFilled, "4", nil},
		{"matched shrinks", func(tx *Tx) error { return tx.ApplyResult(o.Hash, "", PartiallyFilled, d("3"), "", now) }, PartiallyFilled, "4", ErrInvalid},
		{"matched over size", func(tx *Tx) error { return tx.ApplyResult(o.Hash, "", PartiallyFilled, d("11"), "", now) }, PartiallyFilled, "4", ErrInvalid},
		{"partial back to live", func(tx *Tx) error { return tx.SetState(o.Hash, Live, now) }, PartiallyFilled, "4", ErrIllegalTransition},
		{"other exchange id", func(tx *Tx) error { return tx.ApplyResult(o.Hash, "X2", PartiallyFilled, d("5"), "", now) }, PartiallyFilled, "4", ErrExchangeIDConflict},
		{"filled", func(tx *Tx) error { return tx.ApplyResult(o.Hash, "", Filled, decimal.Zero, "", now) }, Filled, "10", nil},
		{"filled to live", func(tx *Tx) error { return tx.ApplyResult(o.Hash, "", Live, decimal.Zero, "", now) }, Filled, "10", ErrIllegalTransition},
		{"filled to canceled", func(tx *Tx) error { return tx.SetState(o.Hash, Canceled, now) }, Filled, "10", ErrIllegalTransition},
		{"unknown order", func(tx *Tx) error { return tx.MarkSent("0xnope", now) }, Filled, "10", ErrNotFound},
	}
	for _, st := range steps {
		err := s.Update(st.fn)
		if !errors.Is(err, st.wantErr) {
			t.Fatalf("%s: err = %v, want %v", st.name, err, st.wantErr)
		}
		got, err := s.Order(o.Hash)
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if got.State != st.state || !got.SizeMatched.Equal(d(st.matched)) {
			t.Fatalf("%s: state %s matched %s, want %s %s", st.name, got.State, got.SizeMatched, st.state, st.matched)
		}
	}
	got, _ := s.Order(o.Hash)
	if !got.SentAt.Equal(now) || !got.UpdatedAt.Equal(now) || got.ExchangeID != "X1" {
		t.Fatalf("times/id: %+v", got)
	}
	byX, err := s.OrderByExchangeID("X1")
	if err != nil || byX.Hash != o.Hash {
		t.Fatalf("OrderByExchangeID: %v %v", byX.Hash, err)
	}
	if _, err := s.OrderByExchangeID("X2"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("rejected exchange id was indexed: %v", err)
	}
}

func TestApplyResultRules(t *testing.T) {
	now := t0.Add(time.Minute)
	cases := []struct {
		name    string
		st      OrderState
		matched string
		errMsg  string
		wantErr error
		want    string // size matched recorded
	}{
		{"failed", Failed, "0", "not enough balance", nil, "0"},
		{"failed with matched", Failed, "1", "", ErrInvalid, ""},
		{"partial zero", PartiallyFilled, "0", "", ErrInvalid, ""},
		{"partial whole", PartiallyFilled, "10", "", ErrInvalid, ""},
		{"filled explicit", Filled, "10", "", nil, "10"},
		{"canceled with part", Canceled, "2.5", "", nil, "2.5"},
		{"intent stays", Intent, "0", "", nil, "0"},
		{"bogus state", "bogus", "0", "", ErrIllegalTransition, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newTestStore(t, Options{})
			o := testOrder(1, "tokA", exchange.Buy)
			mustUpdate(t, s, func(tx *Tx) error { return tx.PutIntent(o) })
			err := s.Update(func(tx *Tx) error { return tx.ApplyResult(o.Hash, "", c.st, d(c.matched), c.errMsg, now) })
			if !errors.Is(err, c.wantErr) {
				t.Fatalf("err = %v, want %v", err, c.wantErr)
			}
			got, _ := s.Order(o.Hash)
			if c.wantErr != nil {
				if got.State != Intent || !got.UpdatedAt.Equal(o.CreatedAt) {
					t.Fatalf("failed ApplyResult changed the order: %+v", got)
				}
				return
			}
			if got.State != c.st || !got.SizeMatched.Equal(d(c.want)) || got.LastError != c.errMsg {
				t.Fatalf("got %s %s %q", got.State, got.SizeMatched, got.LastError)
			}
			if (c.st == Intent) != got.SentAt.IsZero() {
				t.Fatalf("SentAt %v for state %s", got.SentAt, c.st)
			}
		})
	}
}

func TestExchangeIDBelongsToOneOrder(t *testing.T) {
	s := newTestStore(t, Options{})
	a, b := testOrder(1, "tokA", exchange.Buy), testOrder(2, "tokA", exchange.Buy)
	mustUpdate(t, s, func(tx *Tx) error {
		if err := tx.PutIntent(a); err != nil {
			return err
		}
		if err := tx.PutIntent(b); err != nil {
			return err
		}
		return tx.ApplyResult(a.Hash, "X", Live, decimal.Zero, "", t0)
	})
	err := s.Update(func(tx *Tx) error { return tx.ApplyResult(b.Hash, "X", Live, decimal.Zero, "", t0) })
	if !errors.Is(err, ErrExchangeIDConflict) {
		t.Fatalf("err = %v", err)
	}
}

// A cycle's writes commit together or not at all.
func TestUpdateIsAtomic(t *testing.T) {
	s := newTestStore(t, Options{})
	boom := errors.New("boom")
	err := s.Update(func(tx *Tx) error {
		for i := 1; i <= 3; i++ {
			if err := tx.PutIntent(testOrder(i, "tokA", exchange.Buy)); err != nil {
				return err
			}
		}
		if err := tx.SetMeta("cursor", "abc"); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	all, err := s.Orders(OrderFilter{})
	if err != nil || len(all) != 0 {
		t.Fatalf("rolled-back intents visible: %d %v", len(all), err)
	}
	_ = s.View(func(tx *Tx) error {
		if _, ok := tx.Meta("cursor"); ok {
			t.Fatalf("rolled-back meta visible")
		}
		return nil
	})
}

func TestOrdersQueries(t *testing.T) {
	s := newTestStore(t, Options{})
	states := []OrderState{Intent, Sent, Live, PartiallyFilled, Filled, Canceled, Failed}
	mustUpdate(t, s, func(tx *Tx) error {
		for i, st := range states {
			tok := "tokA"
			if i%2 == 1 {
				tok = "tokB"
			}
			// insert newest first, to show results come back oldest first
			o := testOrder(len(states)-i, tok, exchange.Buy)
			if err := tx.PutIntent(o); err != nil {
				return err
			}
			matched := decimal.Zero
			if st == PartiallyFilled || st == Canceled {
				matched = d("1")
			}
			if st != Intent {
				if err := tx.ApplyResult(o.Hash, "", st, matched, "", t0); err != nil {
					return err
				}
			}
		}
		return nil
	})
	hashesOf := func(os []Order) (out []string) {
		for _, o := range os {
			out = append(out, string(o.State))
		}
		return out
	}
	nf, err := s.NonFinalOrders()
	if err != nil {
		t.Fatal(err)
	}
	// created at t0+7s (intent) … t0+1s (failed): oldest first is reverse life-cycle order
	if got, want := hashesOf(nf), []string{"partially_filled", "live", "sent", "intent"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("NonFinalOrders = %v, want %v", got, want)
	}
	cases := []struct {
		f    OrderFilter
		want []string
	}{
		{OrderFilter{}, []string{"failed", "canceled", "filled", "partially_filled", "live", "sent", "intent"}},
		{OrderFilter{States: []OrderState{Live, Intent, Live}}, []string{"live", "intent"}},
		{OrderFilter{TokenID: "tokB"}, []string{"canceled", "partially_filled", "sent"}},
		{OrderFilter{TokenID: "tokB", States: []OrderState{Canceled, Live}}, []string{"canceled"}},
		{OrderFilter{ConditionID: "0xother"}, nil},
	}
	for _, c := range cases {
		got, err := s.Orders(c.f)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(hashesOf(got), c.want) {
			t.Errorf("Orders(%+v) = %v, want %v", c.f, hashesOf(got), c.want)
		}
		// EachOrder visits the same orders, one at a time, in no set order.
		var each []string
		err = s.View(func(tx *Tx) error {
			return tx.EachOrder(c.f, func(o *Order) error { each = append(each, string(o.State)); return nil })
		})
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(each)
		want := slices.Sorted(slices.Values(c.want))
		if !slices.Equal(each, want) {
			t.Errorf("EachOrder(%+v) visits %v, want %v", c.f, each, want)
		}
	}
	// An error from the callback stops the walk and comes back.
	stop := errors.New("stop")
	calls := 0
	err = s.View(func(tx *Tx) error {
		return tx.EachOrder(OrderFilter{}, func(*Order) error { calls++; return stop })
	})
	if !errors.Is(err, stop) || calls != 1 {
		t.Errorf("EachOrder returned %v after %d calls, want stop after 1", err, calls)
	}
}

func TestMeta(t *testing.T) {
	s := newTestStore(t, Options{Account: "0xacc"})
	mustUpdate(t, s, func(tx *Tx) error { return tx.SetMeta("trade_cursor", "") })
	for _, k := range []string{"schema_version", "account"} {
		err := s.Update(func(tx *Tx) error { return tx.SetMeta(k, "x") })
		if !errors.Is(err, ErrReservedMeta) {
			t.Errorf("SetMeta(%s): %v", k, err)
		}
	}
	if err := s.Update(func(tx *Tx) error { return tx.SetMeta("", "x") }); !errors.Is(err, ErrInvalid) {
		t.Errorf("SetMeta empty key: %v", err)
	}
	_ = s.View(func(tx *Tx) error {
		if v, ok := tx.Meta("trade_cursor"); !ok || v != "" {
			t.Errorf("empty meta value: %q %v", v, ok)
		}
		if v, ok := tx.Meta("schema_version"); !ok || v != strconv.Itoa(SchemaVersion) {
			t.Errorf("schema_version = %q", v)
		}
		if tx.Account() != "0xacc" {
			t.Errorf("account = %q", tx.Account())
		}
		return nil
	})
}

func TestViewRejectsWrites(t *testing.T) {
	s := newTestStore(t, Options{})
	o := testOrder(1, "tokA", exchange.Buy)
	err := s.View(func(tx *Tx) error { return tx.PutIntent(o) })
	if !errors.Is(err, ErrReadOnly) {
		t.Fatalf("PutIntent in View: %v", err)
	}
	writes := map[string]func(tx *Tx) error{
		"MarkSent":    func(tx *Tx) error { return tx.MarkSent(o.Hash, t0) },
		"ApplyResult": func(tx *Tx) error { return tx.ApplyResult(o.Hash, "", Live, decimal.Zero, "", t0) },
		"SetState":    func(tx *Tx) error { return tx.SetState(o.Hash, Live, t0) },
		"SetMeta":     func(tx *Tx) error { return tx.SetMeta("k", "v") },
		"AddFill":     func(tx *Tx) error { _, err := tx.AddFill(Fill{}); return err },
	}
	for name, fn := range writes {
		if err := s.View(fn); !errors.Is(err, ErrReadOnly) {
			t.Errorf("%s in View: %v", name, err)
		}
	}
}
