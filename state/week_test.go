package state

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
)

// weekSim drives a journal as the daemon does at a sustained order rate,
// on a fake clock: each step (one cycle's batch) journals the step's new
// intents in one transaction, then, in a second one, their placement
// answers (Live) and the fate of the previous step's orders: one in
// fillEvery filled (a fill and Filled), the others canceled with nothing
// matched. After each step the pruner removes up to batch orders final for
// longer than retention, in its own transaction.
type weekSim struct {
	rate      int           // orders placed (and about as many cancelled) a simulated second
	step      time.Duration // simulated time per batch
	duration  time.Duration // simulated time in all
	retention time.Duration
	batch     int // prune batch
	fillEvery int
	// sample is the simulated period over which sizes and transaction
	// times are reported.
	sample   time.Duration
	progress bool // log each sample as it is taken
}

type weekSample struct {
	at    time.Duration // simulated time at the end of the sample
	size  int64         // the file's size
	used  int64         // bytes up to bbolt's high-water page (free pages within count)
	txAvg time.Duration // mean wall time of a step's two transactions
	// pages is the mean number of pages a step's transactions allocate
	// and write (bbolt's PageCount): the work of a commit, which does not
	// depend on how loaded the machine is.
	pages float64
	fills int // fills journaled so far
}

type weekResult struct {
	samples []weekSample
	fills   int // fills journaled in all
	orders  int
	pruned  int
}

var simTokens = func() (out [400]string) {
	for i := range out {
		out[i] = fmt.Sprintf("7132104567925221259462638553270691275033272857194253228963137931245%010d", i)
	}
	return out
}()

// simOrder is order i of the simulation, with ids of the real shapes.
func simOrder(i int, at time.Time) Order {
	h := sha256.Sum256(binary.BigEndian.AppendUint64(nil, uint64(i)))
	hash := "0x" + hex.EncodeToString(h[:])
	tok := simTokens[i%len(simTokens)]
	cond := fmt.Sprintf("0x%064x", 0xc0de0000+i%len(simTokens)/2)
	salt := fmt.Sprint(binary.BigEndian.Uint64(h[8:]) >> 12)
	sig := "0x" + hex.EncodeToString(append(h[:], append(h[:], h[:]...)...))[:130]
	return Order{
		Hash: hash, ConditionID: cond, TokenID: tok, Outcome: i % 2, Side: exchange.Buy,
		Price: decimal.New(int64(40+i%20), -2), Size: decimal.New(int64(10+i%3*10), 0), OrderType: exchange.GTC,
		Item: exchange.PlacementItem{Order: exchange.SignedOrder{
			Salt: salt, Maker: "0x9d84ce0306f8551e02efef1680475fc0f1dc1344", Signer: "0x9d84ce0306f8551e02efef1680475fc0f1dc1344",
			TokenID: tok, ConditionID: cond, MakerAmount: "4500000", TakerAmount: "10000000", Side: exchange.Buy,
			Timestamp: fmt.Sprint(at.UnixMilli()), Metadata: "0x" + hex.EncodeToString(make([]byte, 32)),
			Builder: "0x" + hex.EncodeToString(make([]byte, 32)), Signature: sig,
		}, OrderType: exchange.GTC},
		Salt: salt, CreatedAt: at,
	}
}

func (w weekSim) run(t testing.TB, s *Store, start time.Time) weekResult {
	t.Helper()
	per := int(int64(w.rate) * int64(w.step/time.Second))
	var res weekResult
	var prev []Order
	var txSum time.Duration
	var txN int
	var pages0 int64 // pages of this sample's steps
	next := 0
	for el := w.step; el <= w.duration; el += w.step {
		now := start.Add(el)
		cur := make([]Order, per)
		for i := range cur {
			cur[i] = simOrder(next, now)
			next++
		}
		t0 := time.Now()
		p0 := pageCount(s)
		mustUpdate(t, s, func(tx *Tx) error {
			for i := range cur {
				if err := tx.PutIntent(cur[i]); err != nil {
					return err
				}
			}
			return nil
		})
		mustUpdate(t, s, func(tx *Tx) error {
			for i := range cur {
				if err := tx.ApplyResult(cur[i].Hash, cur[i].Hash, Live, decimal.Zero, "", now); err != nil {
					return err
				}
			}
			for i := range prev {
				o := &prev[i]
				if (next-2*per+i)%w.fillEvery != 0 {
					if err := tx.ApplyResult(o.Hash, "", Canceled, decimal.Zero, "", now); err != nil {
						return err
					}
					continue
				}
				f := Fill{ID: DerivedFillID(o.Hash, o.Size), OrderHash: o.Hash, ConditionID: o.ConditionID, TokenID: o.TokenID,
					Side: o.Side, Price: o.Price, Size: o.Size, Fee: decimal.Zero, Time: now}
				if _, err := tx.AddFill(f); err != nil {
					return err
				}
				res.fills++
				if err := tx.ApplyResult(o.Hash, "", Filled, o.Size, "", now); err != nil {
					return err
				}
			}
			return nil
		})
		txSum += time.Since(t0)
		txN++
		pages0 += pageCount(s) - p0
		prev = cur
		n, _, err := s.Prune(now.Add(-w.retention), w.batch)
		if err != nil {
			t.Fatal(err)
		}
		res.pruned += n
		if el%w.sample == 0 {
			fi, err := os.Stat(s.Path())
			if err != nil {
				t.Fatal(err)
			}
			var used int64
			_ = s.View(func(tx *Tx) error { used = tx.btx.Size(); return nil })
			sm := weekSample{at: el, size: fi.Size(), used: used, txAvg: txSum / time.Duration(txN), fills: res.fills,
				pages: float64(pages0) / float64(txN)}
			res.samples = append(res.samples, sm)
			if w.progress {
				t.Logf("t=%-8s file %7.1f MB  used %7.1f MB  fills %8d  step tx %v, %.0f pages", sm.at, float64(sm.size)/(1<<20), float64(sm.used)/(1<<20), sm.fills, sm.txAvg, sm.pages)
			}
			txSum, txN, pages0 = 0, 0, 0
		}
	}
	res.orders = next
	return res
}

// check asserts what the week must show: the file stops growing after the
// first retention period but for the fills (at most keptPerFill bytes each,
// with slack for bbolt's allocation steps), stays under maxSize, the step's
// transactions in the last sample write at most 1.5x the pages of the
// first's and (when checkTx) take at most 1.5x their time, and every fill
// is still there.
func (w weekSim) check(t testing.TB, s *Store, res weekResult, maxSize int64, checkTx bool) {
	t.Helper()
	const keptPerFill, slack = 600, 1 << 20
	var base weekSample
	for _, sm := range res.samples {
		t.Logf("t=%-8s file %7.1f MB  used %7.1f MB  fills %8d  step tx %v, %.0f pages", sm.at, float64(sm.size)/(1<<20), float64(sm.used)/(1<<20), sm.fills, sm.txAvg, sm.pages)
		if sm.at == 2*w.retention {
			base = sm
		}
		if sm.at > 2*w.retention && base.at != 0 {
			if limit := base.used + int64(sm.fills-base.fills)*keptPerFill + slack; sm.used > limit {
				t.Errorf("t=%s: %d bytes used, over %d: the journal grows by more than the kept fills", sm.at, sm.used, limit)
			}
		}
	}
	last := res.samples[len(res.samples)-1]
	if last.size > maxSize {
		t.Errorf("file %d bytes, want under %d", last.size, maxSize)
	}
	// The first hour's cost (the week's first sample): the sample that ends
	// the first retention period, once the journal holds a full window.
	var first weekSample
	for _, sm := range res.samples {
		if sm.at >= w.retention {
			first = sm
			break
		}
	}
	if checkTx && last.txAvg > first.txAvg*3/2 {
		t.Errorf("step transactions take %v in the last sample, %v in the first: over 1.5x", last.txAvg, first.txAvg)
	}
	if last.pages > first.pages*3/2 {
		t.Errorf("step transactions write %.0f pages in the last sample, %.0f in the first: over 1.5x", last.pages, first.pages)
	}
	var fills int
	err := s.View(func(tx *Tx) error {
		return tx.EachFill(time.Time{}, func(*Fill) error { fills++; return nil })
	})
	if err != nil || fills != res.fills {
		t.Errorf("%d fills in the journal (%v), %d journaled", fills, err, res.fills)
	}
	t.Logf("%d orders, %d fills, %d pruned", res.orders, res.fills, res.pruned)
	logBuckets(t, s)
}

// logBuckets logs each bucket's keys and the bytes its pages take.
func logBuckets(t testing.TB, s *Store) {
	t.Helper()
	_ = s.View(func(tx *Tx) error {
		for _, name := range allBuckets {
			st := tx.bucket(name).Stats()
			t.Logf("%-16s %9d keys  leaf %7.1f MB in use of %7.1f MB, branch %6.1f MB", name, st.KeyN,
				float64(st.LeafInuse)/(1<<20), float64(st.LeafAlloc)/(1<<20), float64(st.BranchAlloc)/(1<<20))
		}
		return nil
	})
}

// TestJournalRetentionShort is the normal-test version of the week: three
// simulated hours at 4 orders a second with a 30-minute retention. The
// file plateaus after the first retention period (it grows only by the
// fills) and every fill is kept. Transaction times are not asserted here
// (no timed tests); the week reports them.
func TestJournalRetentionShort(t *testing.T) {
	s := newTestStore(t, Options{})
	w := weekSim{rate: 4, step: 10 * time.Second, duration: 3 * time.Hour, retention: 30 * time.Minute,
		batch: 1000, fillEvery: 20, sample: 15 * time.Minute}
	res := w.run(t, s, t0)
	w.check(t, s, res, 64<<20, false)
	if res.pruned == 0 {
		t.Fatal("nothing was pruned")
	}
	// What is left: the open orders, the final ones inside the retention
	// period, and every order with a fill.
	all, err := s.Orders(OrderFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if want := res.orders - res.pruned; len(all) != want {
		t.Fatalf("%d orders left, want %d", len(all), want)
	}
	var filled int
	for _, o := range all {
		if o.State == Filled {
			filled++
		}
	}
	if filled != res.fills {
		t.Fatalf("%d filled orders kept, want %d", filled, res.fills)
	}
}

// TestJournalWeek is the simulated week at the sustained caps (40 orders a
// second placed, about as many cancelled, 5% filled) with the default
// retention. Opt in with JOURNAL_WEEK=1 (it inserts 24 million orders);
// JOURNAL_WEEK_HOURS shortens it, JOURNAL_WEEK_RATE scales the rate.
func TestJournalWeek(t *testing.T) {
	if os.Getenv("JOURNAL_WEEK") != "1" {
		t.Skip("set JOURNAL_WEEK=1 to run the simulated week")
	}
	hours, rate := 7*24, 40
	if v := os.Getenv("JOURNAL_WEEK_HOURS"); v != "" {
		_, _ = fmt.Sscan(v, &hours)
	}
	if v := os.Getenv("JOURNAL_WEEK_RATE"); v != "" {
		_, _ = fmt.Sscan(v, &rate)
	}
	path := filepath.Join(t.TempDir(), "week.db")
	s, err := Open(path, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	w := weekSim{rate: rate, step: 10 * time.Second, duration: time.Duration(hours) * time.Hour, retention: DefaultRetention,
		batch: DefaultPruneBatch, fillEvery: 20, sample: time.Hour, progress: true}
	res := w.run(t, s, t0)
	w.check(t, s, res, 500<<20, true)
}

// pageCount is the number of pages the store's transactions have allocated.
func pageCount(s *Store) int64 {
	st := s.db.Stats()
	return st.TxStats.GetPageCount()
}
