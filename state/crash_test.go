package state

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
)

// Environment of the crash child: the journal path and the first order
// number it may use.
const (
	envCrashPath  = "MMBOT_STATE_CRASH_CHILD_PATH"
	envCrashFirst = "MMBOT_STATE_CRASH_CHILD_FIRST"
)

// TestCrashSafety re-executes the test binary as a child that journals
// cycles (three new intents, results for the previous three, one fill) with
// fsync on, reporting each committed intent's hash over a pipe. The parent
// SIGKILLs it after a random number of reports, that is at an arbitrary point
// of a later transaction, and then reopens the file: the open must succeed,
// Check must pass, and every reported order must be there. Several rounds
// crash the same file.
func TestCrashSafety(t *testing.T) {
	if path := os.Getenv(envCrashPath); path != "" {
		crashChild(path)
		return
	}
	if testing.Short() {
		t.Skip("re-executes the test binary")
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	path := filepath.Join(t.TempDir(), "state.db")
	reported := map[string]bool{}
	for round := range 6 {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashSafety$")
		cmd.Env = append(os.Environ(), envCrashPath+"="+path, envCrashFirst+"="+strconv.Itoa(1+round*100000))
		cmd.ExtraFiles = []*os.File{w} // fd 3 in the child
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		_ = w.Close()
		killAfter := 1 + rng.IntN(40)
		sc := bufio.NewScanner(r)
		n := 0
		for sc.Scan() {
			reported[sc.Text()] = true
			n++
			if n == killAfter {
				_ = cmd.Process.Signal(syscall.SIGKILL)
			}
		} // drains what the child wrote before it died
		_ = r.Close()
		werr := cmd.Wait()
		if n < killAfter {
			t.Fatalf("round %d: child stopped after %d reports (%v)", round, n, werr)
		}
		s, err := Open(path, Options{LockTimeout: 5 * time.Second})
		if err != nil {
			t.Fatalf("round %d: reopen after SIGKILL: %v", round, err)
		}
		if err := s.Check(); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		missing := 0
		_ = s.View(func(tx *Tx) error {
			for h := range reported {
				if _, err := tx.Order(h); err != nil {
					missing++
				}
			}
			return nil
		})
		all, _ := s.Orders(OrderFilter{})
		_ = s.Close()
		if missing > 0 {
			t.Fatalf("round %d: %d of %d reported orders lost", round, missing, len(reported))
		}
		t.Logf("round %d: killed after %d reports; %d reported, %d journaled", round, n, len(reported), len(all))
	}
}

// crashChild is the child's body: journal cycles until killed (or a cap, so
// that an orphan cannot run for ever).
func crashChild(path string) {
	first, _ := strconv.Atoi(os.Getenv(envCrashFirst))
	report := os.NewFile(3, "report")
	s, err := Open(path, Options{LockTimeout: 5 * time.Second})
	if err != nil {
		fmt.Fprintln(os.Stderr, "crash child:", err)
		os.Exit(3)
	}
	var prev []Order
	next := first
	for cycle := range 20000 {
		var cur []Order
		err := s.Update(func(tx *Tx) error {
			now := t0.Add(time.Duration(next) * time.Second)
			for _, o := range prev {
				if err := tx.ApplyResult(o.Hash, "X"+o.Hash[50:], Live, decimal.Zero, "", now); err != nil {
					return err
				}
			}
			if len(prev) > 0 {
				f := testFill(fmt.Sprint("t", next), prev[0], "1", "0.45", now)
				if _, err := tx.AddFill(f); err != nil {
					return err
				}
			}
			for range 3 {
				o := testOrder(next, "tok"+strconv.Itoa(cycle%3), exchange.Buy)
				next++
				if err := tx.PutIntent(o); err != nil {
					return err
				}
				cur = append(cur, o)
			}
			return nil
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, "crash child:", err)
			os.Exit(4)
		}
		for _, o := range cur {
			if _, err := fmt.Fprintln(report, o.Hash); err != nil {
				os.Exit(5)
			}
		}
		prev = cur
	}
	_ = s.Close()
	os.Exit(0)
}
