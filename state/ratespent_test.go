package state

import (
	"errors"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/mmbot/mmbot/exchange"
)

// sampleSpent is a rate-limit record with a ten-minute bucket of many
// entries, an empty bucket and a bucket in debt.
func sampleSpent() exchange.Spent {
	at := t0.Add(time.Hour)
	var long []exchange.SpentUnits
	for i := 1000; i >= 1; i-- {
		long = append(long, exchange.SpentUnits{At: at.Add(-time.Duration(i) * 600 * time.Millisecond), N: int64(i%40 + 1)})
	}
	return exchange.Spent{At: at, Buckets: []exchange.BucketSpent{
		{Name: "post_order_sustained", Cap: exchange.Cap{Requests: 24000, Window: 10 * time.Minute}, Burst: 1140, PerSecond: 36.1,
			Tokens: 17.25, Units: long},
		{Name: "clob_books", Cap: exchange.Cap{Requests: 80, Window: 10 * time.Second}, Burst: 3, PerSecond: 7.3, Tokens: 3},
		{Name: "post_order_burst", Cap: exchange.Cap{Requests: 2400, Window: 10 * time.Second}, Burst: 114, PerSecond: 216.6,
			Tokens: -883.4, Units: []exchange.SpentUnits{{At: at.Add(-time.Second), N: 1200}, {At: at, N: 15}}},
	}}
}

// TestRateSpentRoundTrip: the record comes back as written (times to the
// microsecond, rounded toward At), final or not, replacing the previous
// one; a journal without one says so.
func TestRateSpentRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	s, err := Open(path, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	if !s.Created() {
		t.Error("a new journal: Created() = false")
	}
	if _, ok, err := s.RateSpent(); ok || err != nil {
		t.Fatalf("new journal: RateSpent ok=%v err=%v, want none", ok, err)
	}
	want := sampleSpent()
	if err := s.SaveRateSpent(want); err != nil {
		t.Fatal(err)
	}
	got, ok, err := s.RateSpent()
	if err != nil || !ok {
		t.Fatalf("RateSpent: ok=%v err=%v", ok, err)
	}
	if !reflect.DeepEqual(normalize(got), normalize(want)) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got.Buckets[2], want.Buckets[2])
	}
	var size int
	_ = s.View(func(tx *Tx) error { v, _ := tx.Meta("rate_spent"); size = len(v); return nil })
	t.Logf("record of %d entries: %d bytes", len(want.Buckets[0].Units)+2, size)
	if size > 4500 {
		t.Errorf("record of %d bytes for about a thousand entries: want at most about 4 bytes an entry", size)
	}

	// a final record replaces it
	fin := exchange.Spent{At: want.At.Add(time.Second), Final: true}
	if err := s.SaveRateSpent(fin); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := s.RateSpent(); !got.Final || !got.At.Equal(fin.At) || len(got.Buckets) != 0 {
		t.Errorf("after the final record: %+v", got)
	}

	// reopened: not created, the record is there
	if err := s.Check(); err != nil {
		t.Error(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2, err := Open(path, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	checkOnCleanup(t, s2)
	if s2.Created() {
		t.Error("reopened journal: Created() = true")
	}
	if got, ok, _ := s2.RateSpent(); !ok || !got.Final {
		t.Errorf("reopened: %+v, %v", got, ok)
	}
}

// normalize rounds unit times to the microsecond toward At, as stored.
func normalize(sp exchange.Spent) exchange.Spent {
	out := sp
	out.At = sp.At.UTC()
	out.Buckets = nil
	for _, b := range sp.Buckets {
		nb := b
		nb.Units = nil
		for _, u := range b.Units {
			age := sp.At.Sub(u.At) / time.Microsecond * time.Microsecond
			nb.Units = append(nb.Units, exchange.SpentUnits{At: out.At.Add(-age), N: u.N})
		}
		out.Buckets = append(out.Buckets, nb)
	}
	return out
}

// TestRateSpentRoundsLate: a time between two microseconds comes back at
// the later one, never earlier than the admissions it counts.
func TestRateSpentRoundsLate(t *testing.T) {
	at := t0.Add(time.Minute)
	u := at.Add(-1500*time.Microsecond - 400) // 1.5004 ms before At
	raw, err := encodeRateSpent(&exchange.Spent{At: at, Buckets: []exchange.BucketSpent{{Name: "b", Units: []exchange.SpentUnits{{At: u, N: 3}}}}})
	if err != nil {
		t.Fatal(err)
	}
	sp, err := decodeRateSpent(raw)
	if err != nil {
		t.Fatal(err)
	}
	if got := sp.Buckets[0].Units[0].At; got.Before(u) || got.Sub(u) >= time.Microsecond {
		t.Errorf("decoded %v, want within 1 µs at or after %v", got, u)
	}
}

func TestRateSpentRefused(t *testing.T) {
	s := newTestStore(t, Options{})
	if err := s.Update(func(tx *Tx) error { return tx.SetMeta("rate_spent", "x") }); !errors.Is(err, ErrReservedMeta) {
		t.Errorf("SetMeta(rate_spent): %v, want ErrReservedMeta", err)
	}
	bad := []exchange.Spent{
		{}, // no time
		{At: t0, Buckets: []exchange.BucketSpent{{Name: ""}}},                       // no name
		{At: t0, Buckets: []exchange.BucketSpent{{Name: "b", Burst: -1}}},           // Validate
		{At: t0, Buckets: []exchange.BucketSpent{{Name: string(make([]byte, 65))}}}, // too long
	}
	for _, sp := range bad {
		if err := s.SaveRateSpent(sp); !errors.Is(err, ErrInvalid) {
			t.Errorf("SaveRateSpent(%+v): %v, want ErrInvalid", sp, err)
		}
	}
	if _, ok, _ := s.RateSpent(); ok {
		t.Error("a refused record was stored")
	}
}

// TestRateSpentCorrupt: a damaged record is an ErrInvalid from RateSpent
// and a finding of Check, never a panic or a wrong record.
func TestRateSpentCorrupt(t *testing.T) {
	raw, err := encodeRateSpent(new(sampleSpent()))
	if err != nil {
		t.Fatal(err)
	}
	damaged := map[string][]byte{
		"empty":           {},
		"newer version":   append([]byte{2}, raw[1:]...),
		"truncated":       raw[:len(raw)/2],
		"trailing bytes":  append(append([]byte(nil), raw...), 0),
		"final byte 7":    append(append([]byte(nil), raw[:1+binaryLen(raw[1:])]...), 7),
		"huge count only": {1, 0, 0, 0xff, 0xff, 0xff, 0xff, 0x0f},
	}
	for name, b := range damaged {
		if _, err := decodeRateSpent(b); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: %v, want ErrInvalid", name, err)
		}
	}
	path := filepath.Join(t.TempDir(), "state.db")
	s, err := Open(path, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.db.Update(func(btx *bolt.Tx) error { return btx.Bucket(bucketMeta).Put(keyRateSpent, raw[:len(raw)-3]) }); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.RateSpent(); !errors.Is(err, ErrInvalid) {
		t.Errorf("RateSpent of a truncated record: %v", err)
	}
	if err := s.Check(); !errors.Is(err, ErrInconsistent) {
		t.Errorf("Check with a truncated record: %v", err)
	}
}

// binaryLen is the length of the varint at the start of b.
func binaryLen(b []byte) int {
	for i, c := range b {
		if c < 0x80 {
			return i + 1
		}
	}
	return len(b)
}

// FuzzRateSpentDecode: any bytes decode to a valid record or ErrInvalid,
// and a decoded record encodes back to the same bytes.
func FuzzRateSpentDecode(f *testing.F) {
	raw, _ := encodeRateSpent(new(sampleSpent()))
	f.Add(raw)
	small, _ := encodeRateSpent(&exchange.Spent{At: t0, Final: true})
	f.Add(small)
	f.Add([]byte{1})
	f.Fuzz(func(t *testing.T, b []byte) {
		sp, err := decodeRateSpent(b)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %v is not ErrInvalid", err)
			}
			return
		}
		again, err := encodeRateSpent(&sp)
		if err != nil {
			t.Fatalf("decoded record does not encode: %v", err)
		}
		back, err := decodeRateSpent(again)
		if err != nil || !reflect.DeepEqual(back, sp) {
			t.Fatalf("re-encoded record decodes differently: %v\n%+v\n%+v", err, back, sp)
		}
	})
}
