package sim

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/exchange/sim/catalog"
	"github.com/mmbot/mmbot/exchange/sim/engine"
	"github.com/mmbot/mmbot/internal/atomicfile"
	"github.com/mmbot/mmbot/internal/secret"
)

// StateVersion is the version of the state file written. A reader refuses
// other versions; a new field that older files lack decodes as its zero
// value, so adding one (with a default that means "as before") needs no new
// version.
const StateVersion = 1

// State is everything a simulated exchange needs to start again as the same
// exchange: the catalog, the clock, every account with its keys and API
// credentials, the matching engine's balances and live orders, the data
// API's records (orders, trades, positions, closed positions, builder
// trades) and the simulated flow's state (fair values, ladders, random
// source). Config.StateFile saves it on Close and every Config.StateEvery,
// and New loads it. docs/simulator.md documents the file.
type State struct {
	Version  int              `json:"version"`
	Saved    time.Time        `json:"saved"`
	Seed     uint64           `json:"seed"`
	Start    time.Time        `json:"start"`
	Now      time.Time        `json:"now"`
	Catalog  *catalog.Catalog `json:"catalog"`
	Markets  []MarketState    `json:"markets"`
	Accounts []AccountState   `json:"accounts"`
	Engine   engine.Snapshot  `json:"engine"`
	Orders   []OrderState     `json:"orders"`
	// Delayed are the placements held by their market's matching delay,
	// in arrival order.
	Delayed []DelayedState `json:"delayed,omitempty"`
	Ledger  LedgerState    `json:"ledger"`
	Flow    FlowState      `json:"flow"`
	// Rewards is the liquidity-reward program's state: what each account
	// earned and each market paid, and the next sample (absent in older
	// files: nothing earned, the next sample after Now).
	Rewards *RewardsState `json:"rewards,omitempty"`
}

// RewardsState is the liquidity-reward program's state.
type RewardsState struct {
	Next  time.Time           `json:"next"`
	Lines []RewardLineState   `json:"lines,omitempty"` // by wallet, then market
	Paid  []RewardMarketState `json:"paid,omitempty"`  // by market
}

// RewardLineState is what one account earned in one market.
type RewardLineState struct {
	Wallet  string `json:"wallet"`
	Market  string `json:"market"`
	Earned  int64  `json:"earned"` // base units
	Samples int    `json:"samples"`
}

// RewardMarketState is what one market paid in total, every account.
type RewardMarketState struct {
	Market string `json:"market"`
	Paid   int64  `json:"paid"` // base units
}

// MarketState is the exchange's state of one market besides the engine's.
type MarketState struct {
	ConditionID string    `json:"condition_id"` // lower case
	Logit       float64   `json:"logit"`        // fair value of outcome 0, logit
	Ladder      float64   `json:"ladder"`       // fair value of the maker's ladder
	Requote     time.Time `json:"requote,omitzero"`
	// TickSize is the market's tick after ChangeTick (zero in older
	// files: the catalog's); BookTick the tick each outcome's book still
	// reports when it differs.
	TickSize decimal.Decimal    `json:"tick_size,omitzero"`
	BookTick [2]decimal.Decimal `json:"book_tick,omitzero"`
	Closed   bool               `json:"closed,omitempty"`
	Winner   int                `json:"winner"`
	ClosedAt time.Time          `json:"closed_at,omitzero"`
}

// AccountState is one account. Secrets are in clear: the file is written
// with mode 0600, like the credentials file.
type AccountState struct {
	Label         string `json:"label"`
	Address       string `json:"address"`
	Wallet        string `json:"wallet"`
	SignatureType int    `json:"signature_type"`
	APIKey        string `json:"api_key"`
	Secret        string `json:"secret,omitempty"`
	Passphrase    string `json:"passphrase,omitempty"`
	PrivateKey    string `json:"private_key,omitempty"` // generated keys only
	Flow          bool   `json:"flow,omitempty"`
	Revoked       bool   `json:"revoked,omitempty"`
}

// OrderState is an order placed over HTTP, live or not (GET
// /data/order/{id} answers for both).
type OrderState struct {
	Order   engine.OrderSnapshot `json:"order"`
	Owner   string               `json:"owner"`
	Maker   string               `json:"maker"`
	Type    exchange.OrderType   `json:"type"`
	Builder string               `json:"builder,omitempty"`
	Trades  []string             `json:"trades,omitempty"`
	Held    bool                 `json:"held,omitempty"` // held by its market's delay (Delayed)
}

// DelayedState is a placement waiting for its market's delay.
type DelayedState struct {
	Request engine.OrderRequest `json:"request"`
	At      time.Time           `json:"at"` // when it reaches the engine
}

// LedgerState is the data API's records.
type LedgerState struct {
	Trades    []TradeState    `json:"trades"`
	Positions []PositionState `json:"positions"`
	Closed    []ClosedState   `json:"closed"`
	Builder   []BuilderState  `json:"builder"`
}

// TradeState is one participant's side of one fill.
type TradeState struct {
	Seq     uint64      `json:"seq"`
	ID      string      `json:"id"`
	Wallet  string      `json:"wallet"`
	Market  string      `json:"market"`
	Outcome int         `json:"outcome"`
	Side    engine.Side `json:"side"`
	Size    int64       `json:"size"`
	Price   int64       `json:"price"`
	Amount  int64       `json:"amount"`
	Time    time.Time   `json:"time"`
	Taker   bool        `json:"taker,omitempty"`
	Tx      string      `json:"tx"`
}

// PositionState is one open position: Key is "wallet/token".
type PositionState struct {
	Key        string    `json:"key"`
	Qty        int64     `json:"qty"`
	Cost       int64     `json:"cost"`
	Bought     int64     `json:"bought"`
	BoughtCost int64     `json:"bought_cost"`
	Realized   int64     `json:"realized"`
	Last       time.Time `json:"last"`
}

// ClosedState is one closed position, in the order they closed.
type ClosedState struct {
	Wallet     string    `json:"wallet"`
	Market     string    `json:"market"`
	Outcome    int       `json:"outcome"`
	Bought     int64     `json:"bought"`
	BoughtCost int64     `json:"bought_cost"`
	Realized   int64     `json:"realized"`
	CurPrice   int64     `json:"cur_price"`
	Time       time.Time `json:"time"`
	Resolved   bool      `json:"resolved,omitempty"`
}

// BuilderState is one builder trade.
type BuilderState struct {
	ID      string        `json:"id"`
	Kind    string        `json:"kind"`
	Order   string        `json:"order"`
	Market  string        `json:"market"`
	Outcome int           `json:"outcome"`
	Side    engine.Side   `json:"side"`
	Size    int64         `json:"size"`
	Price   int64         `json:"price"`
	Time    time.Time     `json:"time"`
	Tx      string        `json:"tx"`
	Fills   []BuilderFill `json:"fills"`
}

// BuilderFill is what a builder trade shows of one of its fills.
type BuilderFill struct {
	TakerOrder   string      `json:"taker_order"`
	MakerOrder   string      `json:"maker_order"`
	MakerAccount string      `json:"maker_account"`
	MakerOutcome int         `json:"maker_outcome"`
	MakerSide    engine.Side `json:"maker_side"`
	MakerPrice   int64       `json:"maker_price"`
	Size         int64       `json:"size"`
}

// FlowState is the simulated flow's own state.
type FlowState struct {
	Rand    []byte            `json:"rand"`              // the PCG source, MarshalBinary
	Orders  uint64            `json:"orders"`            // orders sent (their ids are flow-N)
	Markets []FlowMarketState `json:"markets,omitempty"` // the informed flow's values, by market
}

// FlowMarketState is the flow's state of one market: the true value's
// diffusion and jump parts, the public value following them, and the
// informed orders still to come (a news burst's sweeps, waiting takers).
type FlowMarketState struct {
	ConditionID string        `json:"condition_id"`
	Ahead       *float64      `json:"ahead,omitempty"` // absent in older files: equal to Diff
	Diff        float64       `json:"diff"`
	Jump        float64       `json:"jump"`
	PDiff       float64       `json:"pdiff"`
	PJump       float64       `json:"pjump"`
	Pub         float64       `json:"pub"`
	Leaks       []LeakState   `json:"leaks,omitempty"` // jumps known to the informed, not yet public
	Sweeps      []time.Time   `json:"sweeps,omitempty"`
	Waiting     []WaiterState `json:"waiting,omitempty"`
}

// LeakState is a jump that becomes public at At.
type LeakState struct {
	At   time.Time `json:"at"`
	Size float64   `json:"size"`
}

// WaiterState is an informed taker waiting for an edge.
type WaiterState struct {
	Size  int64     `json:"size"`
	Until time.Time `json:"until"`
}

// State returns the exchange's state now (e.g. for a test, or to save it
// elsewhere than Config.StateFile).
func (e *Exchange) State() (*State, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	st := &State{Version: StateVersion, Saved: e.cfg.WallClock().UTC(), Seed: e.cfg.Seed, Start: e.cfg.Start, Now: e.now,
		Catalog: e.cat.Catalog, Engine: e.eng.Snapshot()}
	for _, s := range e.markets {
		st.Markets = append(st.Markets, MarketState{ConditionID: s.id, Logit: s.logit, Ladder: s.ladder, Requote: s.requote,
			TickSize: s.tickSize, BookTick: s.bookTick, Closed: s.closed, Winner: s.winner, ClosedAt: s.closedAt})
	}
	for _, a := range e.accts.list {
		st.Accounts = append(st.Accounts, AccountState{Label: a.label, Address: a.address, Wallet: a.wallet, SignatureType: a.sigType,
			APIKey: a.apiKey, Secret: a.secret.Reveal(), Passphrase: a.passphrase.Reveal(), PrivateKey: a.privateKey.Reveal(),
			Flow: a.flow, Revoked: a.revoked})
	}
	ids := make([]string, 0, len(e.orders))
	for id := range e.orders {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return e.orders[ids[i]].o.Seq < e.orders[ids[j]].o.Seq })
	for _, id := range ids {
		r := e.orders[id]
		st.Orders = append(st.Orders, OrderState{Order: engine.SnapshotOf(r.o), Owner: r.owner, Maker: r.maker, Type: r.orderType,
			Builder: r.builder, Trades: append([]string(nil), r.trades...), Held: r.held})
	}
	for _, d := range e.delayed {
		st.Delayed = append(st.Delayed, DelayedState{Request: d.req, At: d.at})
	}
	st.Ledger = e.data.state()
	st.Rewards = e.rewards.state()
	rs, err := e.flow.src.MarshalBinary()
	if err != nil {
		return nil, fmt.Errorf("sim: state: flow random source: %w", err)
	}
	st.Flow = FlowState{Rand: rs, Orders: e.flow.n}
	for _, ms := range e.markets {
		m, ok := e.flow.mk[ms]
		if !ok {
			continue
		}
		ahead := m.ahead
		fs := FlowMarketState{ConditionID: ms.id, Ahead: &ahead, Diff: m.diff, Jump: m.jump, PDiff: m.pdiff, PJump: m.pjump, Pub: m.pub}
		for _, l := range m.leaks {
			fs.Leaks = append(fs.Leaks, LeakState{At: l.at, Size: l.size})
		}
		for _, w := range m.sweeps {
			fs.Sweeps = append(fs.Sweeps, w.at)
		}
		for _, w := range m.waiting {
			fs.Waiting = append(fs.Waiting, WaiterState{Size: w.size, Until: w.until})
		}
		st.Flow.Markets = append(st.Flow.Markets, fs)
	}
	return st, nil
}

// state copies the ledger's records; e.mu is held.
func (l *ledger) state() LedgerState {
	var ls LedgerState
	for _, t := range l.trades {
		ls.Trades = append(ls.Trades, TradeState{Seq: t.seq, ID: t.id, Wallet: t.wallet, Market: t.s.id, Outcome: t.outcome,
			Side: t.side, Size: t.size, Price: t.price, Amount: t.amount, Time: t.time, Taker: t.taker, Tx: t.tx})
	}
	keys := make([]string, 0, len(l.positions))
	for k := range l.positions {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		p := l.positions[k]
		ls.Positions = append(ls.Positions, PositionState{Key: k, Qty: p.qty, Cost: p.cost, Bought: p.bought,
			BoughtCost: p.boughtCost, Realized: p.realized, Last: p.last})
	}
	wallets := make([]string, 0, len(l.closed))
	for w := range l.closed {
		wallets = append(wallets, w)
	}
	sort.Strings(wallets)
	for _, w := range wallets {
		for _, c := range l.closed[w] {
			ls.Closed = append(ls.Closed, ClosedState{Wallet: w, Market: c.s.id, Outcome: c.outcome, Bought: c.bought,
				BoughtCost: c.boughtCost, Realized: c.realized, CurPrice: c.curPrice, Time: c.time, Resolved: c.resolved})
		}
	}
	for _, b := range l.builder {
		bs := BuilderState{ID: b.id, Kind: b.kind, Order: b.rec.o.ID, Market: b.s.id, Outcome: b.outcome, Side: b.side,
			Size: b.size, Price: b.price, Time: b.time, Tx: b.tx}
		for _, f := range b.fills {
			bs.Fills = append(bs.Fills, BuilderFill{TakerOrder: f.Taker.Order.ID, MakerOrder: f.Maker.Order.ID,
				MakerAccount: f.Maker.Account, MakerOutcome: f.Maker.Outcome, MakerSide: f.Maker.Side, MakerPrice: f.Maker.Price, Size: f.Size})
		}
		ls.Builder = append(ls.Builder, bs)
	}
	return ls
}

// restore loads st into a new exchange whose markets are added and whose
// flow is not yet built; it builds the flow.
func (e *Exchange) restore(st *State) error {
	e.now = st.Now
	for _, ms := range st.Markets {
		s, ok := e.byCond[ms.ConditionID]
		if !ok {
			return fmt.Errorf("market %s is not in the catalog", ms.ConditionID)
		}
		s.logit, s.ladder, s.requote, s.closed, s.winner, s.closedAt = ms.Logit, ms.Ladder, ms.Requote, ms.Closed, ms.Winner, ms.ClosedAt
		if !ms.TickSize.IsZero() {
			fx, err := exchange.FixedFromDecimal(ms.TickSize)
			if err != nil || !exchange.ValidTick(ms.TickSize) {
				return fmt.Errorf("market %s: tick size %s", ms.ConditionID, ms.TickSize)
			}
			s.tick, s.tickSize = int64(fx), ms.TickSize
		}
		s.bookTick = ms.BookTick
	}
	for _, as := range st.Accounts {
		a := &account{label: as.Label, apiKey: as.APIKey, secret: secret.New(as.Secret), passphrase: secret.New(as.Passphrase),
			privateKey: secret.New(as.PrivateKey), address: as.Address, wallet: as.Wallet, sigType: as.SignatureType,
			flow: as.Flow, revoked: as.Revoked}
		if _, dup := e.accts.byKey[a.apiKey]; dup {
			return fmt.Errorf("account %s: API key listed twice", a.wallet)
		}
		if _, dup := e.accts.byWallet[a.id()]; dup {
			return fmt.Errorf("account %s listed twice", a.wallet)
		}
		e.accts.add(a)
	}
	if err := e.eng.Restore(st.Engine); err != nil {
		return err
	}
	for _, os := range st.Orders {
		s, ok := e.byCond[os.Order.Market]
		if !ok {
			return fmt.Errorf("order %s: market %s is not in the catalog", os.Order.ID, os.Order.Market)
		}
		o := os.Order.Detached()
		if os.Order.Status == engine.Live && !os.Held {
			if o, ok = e.eng.Order(os.Order.ID); !ok {
				return fmt.Errorf("order %s is live but not in the book", os.Order.ID)
			}
		}
		e.orders[o.ID] = &orderRecord{o: o, s: s, owner: os.Owner, maker: os.Maker, orderType: os.Type, builder: os.Builder,
			trades: append([]string(nil), os.Trades...), held: os.Held}
	}
	for _, d := range st.Delayed {
		rec, ok := e.orders[d.Request.ID]
		if !ok || !rec.held {
			return fmt.Errorf("delayed placement %s has no held order", d.Request.ID)
		}
		e.delayed = append(e.delayed, delayedOrder{req: d.Request, rec: rec, at: d.At})
	}
	if err := e.data.restore(e, st.Ledger); err != nil {
		return err
	}
	e.rewards = newRewards(st.Now) // older files: nothing earned, the next sample after Now
	if st.Rewards != nil {
		known := func(m string) bool { _, ok := e.byCond[m]; return ok }
		if err := e.rewards.restore(st.Rewards, known); err != nil {
			return err
		}
	}
	src := &rand.PCG{}
	if err := src.UnmarshalBinary(st.Flow.Rand); err != nil {
		return fmt.Errorf("flow random source: %w", err)
	}
	f, err := restoreFlow(e, e.cfg.Flow, e.cfg.Seed, src, st.Flow.Orders)
	if err != nil {
		return err
	}
	for _, fs := range st.Flow.Markets {
		ms, ok := e.byCond[fs.ConditionID]
		if !ok {
			return fmt.Errorf("flow state of unknown market %s", fs.ConditionID)
		}
		m := &flowMarket{ahead: fs.Diff, diff: fs.Diff, jump: fs.Jump, pdiff: fs.PDiff, pjump: fs.PJump, pub: fs.Pub}
		if fs.Ahead != nil {
			m.ahead = *fs.Ahead
		}
		for _, l := range fs.Leaks {
			if math.IsNaN(l.Size) || math.IsInf(l.Size, 0) {
				return fmt.Errorf("flow state of market %s: a leaked jump of %v", fs.ConditionID, l.Size)
			}
			m.leaks = append(m.leaks, leak{at: l.At, size: l.Size})
		}
		for _, at := range fs.Sweeps {
			m.sweeps = append(m.sweeps, sweep{at: at})
		}
		for _, w := range fs.Waiting {
			m.waiting = append(m.waiting, waiter{size: w.Size, until: w.Until})
		}
		f.mk[ms] = m
	}
	e.flow = f
	return nil
}

// restore loads the ledger's records; e.mu need not be held (New).
func (l *ledger) restore(e *Exchange, ls LedgerState) error {
	market := func(id string) (*mstate, error) {
		s, ok := e.byCond[id]
		if !ok {
			return nil, fmt.Errorf("ledger: market %s is not in the catalog", id)
		}
		return s, nil
	}
	for _, t := range ls.Trades {
		s, err := market(t.Market)
		if err != nil {
			return err
		}
		l.trades = append(l.trades, tradeRec{seq: t.Seq, id: t.ID, wallet: t.Wallet, walletL: strings.ToLower(t.Wallet), s: s, outcome: t.Outcome,
			side: t.Side, size: t.Size, price: t.Price, amount: t.Amount, time: t.Time, taker: t.Taker, tx: t.Tx})
	}
	for _, p := range ls.Positions {
		l.positions[p.Key] = &position{qty: p.Qty, cost: p.Cost, bought: p.Bought, boughtCost: p.BoughtCost, realized: p.Realized, last: p.Last}
	}
	for _, c := range ls.Closed {
		s, err := market(c.Market)
		if err != nil {
			return err
		}
		l.closed[c.Wallet] = append(l.closed[c.Wallet], closedRec{wallet: c.Wallet, s: s, outcome: c.Outcome, bought: c.Bought,
			boughtCost: c.BoughtCost, realized: c.Realized, curPrice: c.CurPrice, time: c.Time, resolved: c.Resolved})
	}
	for _, b := range ls.Builder {
		s, err := market(b.Market)
		if err != nil {
			return err
		}
		rec, ok := e.orders[b.Order]
		if !ok {
			return fmt.Errorf("ledger: builder trade %s: order %s unknown", b.ID, b.Order)
		}
		br := builderRec{id: b.ID, kind: b.Kind, rec: rec, s: s, outcome: b.Outcome, side: b.Side, size: b.Size, price: b.Price,
			time: b.Time, tx: b.Tx}
		for _, f := range b.Fills {
			br.fills = append(br.fills, engine.Fill{Size: f.Size,
				Taker: engine.Party{Order: &engine.Order{ID: f.TakerOrder}},
				Maker: engine.Party{Order: &engine.Order{ID: f.MakerOrder}, Account: f.MakerAccount, Outcome: f.MakerOutcome,
					Side: f.MakerSide, Price: f.MakerPrice}})
		}
		if len(br.fills) == 0 {
			return fmt.Errorf("ledger: builder trade %s has no fill", b.ID)
		}
		l.builder = append(l.builder, br)
	}
	return nil
}

// ReadStateFile reads a state file. A missing file is an error wrapping
// fs.ErrNotExist (New treats it as "start fresh").
func ReadStateFile(path string) (*State, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("sim: state file: %w", err)
	}
	var st State
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, fmt.Errorf("sim: state file %s: %w", path, err)
	}
	if st.Version != StateVersion {
		return nil, fmt.Errorf("sim: state file %s: version %d, this simulator reads version %d", path, st.Version, StateVersion)
	}
	if st.Catalog == nil {
		return nil, fmt.Errorf("sim: state file %s: no catalog", path)
	}
	return &st, nil
}

// WriteStateFile writes st to path with mode 0600, atomically (temporary
// file in the same directory, fsync, rename): a crash leaves the previous
// file or the new one, never half of one.
func WriteStateFile(path string, st *State) error {
	b, err := json.Marshal(st)
	if err != nil {
		return fmt.Errorf("sim: state file: %w", err)
	}
	err = atomicfile.WriteFile(path, 0o600, func(w io.Writer) error {
		_, err := w.Write(append(b, '\n'))
		return err
	})
	if err != nil {
		return fmt.Errorf("sim: state file: %w", err)
	}
	return nil
}

// SaveState writes the exchange's state to Config.StateFile.
func (e *Exchange) SaveState() error {
	if e.cfg.StateFile == "" {
		return errors.New("sim: SaveState without Config.StateFile")
	}
	st, err := e.State()
	if err != nil {
		return err
	}
	return WriteStateFile(e.cfg.StateFile, st)
}

// Restored reports whether New loaded the exchange from Config.StateFile.
func (e *Exchange) Restored() bool { return e.restored }

// loadState reads Config.StateFile for New: nil when there is none yet.
func loadState(path string) (*State, error) {
	if path == "" {
		return nil, nil
	}
	st, err := ReadStateFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return st, err
}

// saveLoop saves the state every Config.StateEvery until Close.
func (e *Exchange) saveLoop() {
	defer e.done.Done()
	t := time.NewTicker(e.cfg.StateEvery)
	defer t.Stop()
	for {
		select {
		case <-e.stop:
			return
		case <-t.C:
			if err := e.SaveState(); err != nil {
				e.setSaveErr(err)
			}
		}
	}
}

// setSaveErr keeps the last periodic save's failure for Close to return.
func (e *Exchange) setSaveErr(err error) {
	e.srvMu.Lock()
	defer e.srvMu.Unlock()
	e.saveErr = err
}
