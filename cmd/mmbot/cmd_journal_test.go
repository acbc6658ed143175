package main

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/state"
)

var journalT0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// writeJournal makes a journal of n orders, one a minute from journalT0:
// every tenth filled (with its fill), the others canceled with nothing
// matched.
func writeJournal(t *testing.T, path string, n int) {
	t.Helper()
	st, err := state.Open(path, state.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	err = st.Update(func(tx *state.Tx) error {
		for i := range n {
			at := journalT0.Add(time.Duration(i) * time.Minute)
			o := state.Order{Hash: fmt.Sprintf("0x%064x", i+1), ConditionID: "0xc0", TokenID: "1234", Side: exchange.Buy,
				Price: decimal.RequireFromString("0.45"), Size: decimal.RequireFromString("10"), OrderType: exchange.GTC,
				Item: exchange.PlacementItem{Order: exchange.SignedOrder{Salt: fmt.Sprint(i), Signature: "0xab"}}, CreatedAt: at}
			if err := tx.PutIntent(o); err != nil {
				return err
			}
			if err := tx.ApplyResult(o.Hash, o.Hash, state.Live, decimal.Zero, "", at); err != nil {
				return err
			}
			if i%10 != 0 {
				if err := tx.ApplyResult(o.Hash, "", state.Canceled, decimal.Zero, "", at.Add(time.Second)); err != nil {
					return err
				}
				continue
			}
			f := state.Fill{ID: fmt.Sprint("trade-", i), OrderHash: o.Hash, ConditionID: o.ConditionID, TokenID: o.TokenID,
				Side: o.Side, Price: o.Price, Size: o.Size, Fee: decimal.Zero, Time: at.Add(time.Second)}
			if _, err := tx.AddFill(f); err != nil {
				return err
			}
			if err := tx.ApplyResult(o.Hash, "", state.Filled, o.Size, "", at.Add(time.Second)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestJournalCompact: after pruning, compact gives the space back; every
// kept order and fill reads back and the journal checks clean.
func TestJournalCompact(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "mmbot.db")
	writeJournal(t, path, 3000)
	st, err := state.Open(path, state.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	if n, _, err := st.Prune(journalT0.Add(1000*time.Hour), 5000); err != nil || n != 2700 {
		t.Fatalf("Prune = %d, %v; want 2700", n, err)
	}
	_ = st.Close()
	before, _ := os.Stat(path)

	code, out, errOut := runCLI(t, nil, "journal", "compact", "--state", path)
	if code != 0 || !strings.HasPrefix(out, "compacted "+path) {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	after, _ := os.Stat(path)
	if after.Size() >= before.Size() {
		t.Errorf("size %d after compact, %d before", after.Size(), before.Size())
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Errorf("left beside the journal: %v", entries)
	}
	st, err = state.Open(path, state.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Check(); err != nil {
		t.Fatal(err)
	}
	orders, _ := st.Orders(state.OrderFilter{})
	fills, _ := st.Fills(time.Time{})
	if len(orders) != 300 || len(fills) != 300 {
		t.Fatalf("%d orders, %d fills after compact; want 300 each", len(orders), len(fills))
	}
	// The compacted journal keeps taking orders where it left off.
	o := orders[0]
	o.Hash, o.State, o.CreatedAt = "0xnew", "", journalT0.Add(time.Hour*2000)
	if err := st.Update(func(tx *state.Tx) error { return tx.PutIntent(o) }); err != nil {
		t.Fatal(err)
	}
}

// While a daemon holds the journal, compact refuses and changes nothing.
func TestJournalCompactRefusedWhileLocked(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "mmbot.db")
	writeJournal(t, path, 20)
	held, err := state.Open(path, state.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	before, _ := os.ReadFile(path)
	code, out, errOut := runCLI(t, nil, "journal", "compact", "--state", path)
	if code == 0 || out != "" || !strings.Contains(errOut, "locked") || !strings.Contains(errOut, "stop the daemon") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	after, _ := os.ReadFile(path)
	if string(before) != string(after) {
		t.Error("the journal changed")
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Errorf("left beside the journal: %v", entries)
	}
}

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// export writes the period's orders (by creation) and fills (by time).
func TestJournalExport(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "mmbot.db")
	writeJournal(t, path, 100) // orders at minutes 0..99, fills at 0, 10, ..., 90 (+1 s)
	out := filepath.Join(dir, "export")
	code, stdout, errOut := runCLI(t, nil, "journal", "export", "--state", path,
		"--from", "2026-03-01T12:05:00Z", "--to", "2026-03-01T12:25:00Z", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if want := "20 orders to " + filepath.Join(out, "orders.csv") + ", 2 fills to " + filepath.Join(out, "fills.csv") + "\n"; stdout != want {
		t.Errorf("stdout %q, want %q", stdout, want)
	}
	orders := readCSV(t, filepath.Join(out, "orders.csv"))
	if len(orders) != 21 || strings.Join(orders[0], ",") != strings.Join(ordersCSVHeader, ",") {
		t.Fatalf("orders.csv: %d rows, header %v", len(orders), orders[0])
	}
	if got := orders[1]; got[0] != "2026-03-01T12:05:00Z" || got[1] != fmt.Sprintf("0x%064x", 6) || got[11] != "canceled" || got[7] != "0.45" {
		t.Errorf("first order row %v", got)
	}
	if got := orders[6]; got[11] != "filled" || got[9] != "10" {
		t.Errorf("the filled order's row %v", got)
	}
	fills := readCSV(t, filepath.Join(out, "fills.csv"))
	if len(fills) != 3 || strings.Join(fills[0], ",") != strings.Join(fillsCSVHeader, ",") {
		t.Fatalf("fills.csv: %v", fills)
	}
	if got := fills[1]; got[0] != "2026-03-01T12:10:01Z" || got[1] != "trade-10" || got[2] != fmt.Sprintf("0x%064x", 11) || got[4] != "1234" {
		t.Errorf("first fill row %v", got)
	}

	if code, _, errOut := runCLI(t, nil, "journal", "export", "--state", path, "--from", "2026-03-02", "--to", "2026-03-01"); code != 2 || !strings.Contains(errOut, "ends before it starts") {
		t.Errorf("a backwards period: exit %d, %q", code, errOut)
	}
	if code, _, errOut := runCLI(t, nil, "journal", "export", "--state", filepath.Join(dir, "none.db")); code == 0 || !strings.Contains(errOut, "no journal at") {
		t.Errorf("a missing journal: exit %d, %q", code, errOut)
	}
}
