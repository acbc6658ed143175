package state

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/mmbot/mmbot/exchange"
)

// The rate-limit record: what the exchange client's buckets spent in their
// windows (exchange.Spent), so that the next process on this journal starts
// its buckets from what remains (exchange.WithSpent). One value in the meta
// bucket, rewritten whole: the daemon saves it about once a second and
// when it stops. Binary, because the two ten-minute order buckets carry up
// to a thousand entries each:
//
//	version    1 byte (rateSpentVersion)
//	at         varint, Unix nanoseconds
//	final      1 byte, 0 or 1
//	buckets    uvarint count, then per bucket:
//	  name       uvarint length, bytes
//	  requests   uvarint; window uvarint nanoseconds
//	  burst      uvarint
//	  per second 8 bytes, float64 bits, big endian
//	  tokens     8 bytes, float64 bits, big endian
//	  units      uvarint count, then oldest first: age (microseconds before
//	             at) as the first age or the decrease from the previous
//	             one, uvarint; units, uvarint
//
// Ages are rounded down to the microsecond, so a decoded entry is never
// earlier than the admissions it counts (as exchange.SpentUnits requires).
var keyRateSpent = []byte("rate_spent")

const rateSpentVersion = 1

// maxBucketName bounds a bucket name in the record.
const maxBucketName = 64

// PutRateSpent records sp as the journal's rate-limit record, replacing the
// previous one. sp.At must be set.
func (tx *Tx) PutRateSpent(sp exchange.Spent) error {
	if err := tx.writable(); err != nil {
		return err
	}
	raw, err := encodeRateSpent(&sp)
	if err != nil {
		return err
	}
	return tx.bucket(bucketMeta).Put(keyRateSpent, raw)
}

// RateSpent returns the journal's rate-limit record and whether it has one.
func (tx *Tx) RateSpent() (exchange.Spent, bool, error) {
	b := tx.bucket(bucketMeta)
	if b == nil {
		return exchange.Spent{}, false, nil
	}
	raw := b.Get(keyRateSpent)
	if raw == nil {
		return exchange.Spent{}, false, nil
	}
	sp, err := decodeRateSpent(raw)
	if err != nil {
		return exchange.Spent{}, false, err
	}
	return sp, true, nil
}

// SaveRateSpent writes sp as the rate-limit record in its own transaction.
func (s *Store) SaveRateSpent(sp exchange.Spent) error {
	return s.Update(func(tx *Tx) error { return tx.PutRateSpent(sp) })
}

// RateSpent reads the rate-limit record: the record and whether there is
// one.
func (s *Store) RateSpent() (sp exchange.Spent, ok bool, err error) {
	err = s.View(func(tx *Tx) error { sp, ok, err = tx.RateSpent(); return err })
	return sp, ok, err
}

func encodeRateSpent(sp *exchange.Spent) ([]byte, error) {
	if sp.At.IsZero() {
		return nil, fmt.Errorf("rate_spent: no time: %w", ErrInvalid)
	}
	if err := sp.Validate(); err != nil {
		return nil, fmt.Errorf("rate_spent: %w: %w", ErrInvalid, err)
	}
	at := sp.At.UnixNano()
	out := []byte{rateSpentVersion}
	out = binary.AppendVarint(out, at)
	out = append(out, boolByte(sp.Final))
	out = binary.AppendUvarint(out, uint64(len(sp.Buckets)))
	for _, b := range sp.Buckets {
		if b.Name == "" || len(b.Name) > maxBucketName {
			return nil, fmt.Errorf("rate_spent: bucket name %q: %w", b.Name, ErrInvalid)
		}
		if b.Cap.Requests < 0 || b.Cap.Window < 0 {
			return nil, fmt.Errorf("rate_spent: bucket %s: cap %s: %w", b.Name, b.Cap, ErrInvalid)
		}
		out = binary.AppendUvarint(out, uint64(len(b.Name)))
		out = append(out, b.Name...)
		out = binary.AppendUvarint(out, uint64(b.Cap.Requests))
		out = binary.AppendUvarint(out, uint64(b.Cap.Window))
		out = binary.AppendUvarint(out, uint64(b.Burst))
		out = binary.BigEndian.AppendUint64(out, math.Float64bits(b.PerSecond))
		out = binary.BigEndian.AppendUint64(out, math.Float64bits(b.Tokens))
		out = binary.AppendUvarint(out, uint64(len(b.Units)))
		var prev uint64
		for i, u := range b.Units {
			// µs before at, rounded toward at; Validate put the units in
			// time order, so the ages never rise
			age := uint64(max(at-u.At.UnixNano(), 0) / 1000)
			d := age
			if i > 0 {
				d = prev - age
			}
			out = binary.AppendUvarint(out, d)
			out = binary.AppendUvarint(out, uint64(u.N))
			prev = age
		}
	}
	return out, nil
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// errShort is the decoder's error for a record that ends too soon.
var errShort = errors.New("truncated")

// spentReader reads the record's fields; the first error sticks.
type spentReader struct {
	b   []byte
	err error
}

func (r *spentReader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = errShort
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *spentReader) varint() int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.err = errShort
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *spentReader) bytes(n uint64) []byte {
	if r.err != nil {
		return nil
	}
	if n > uint64(len(r.b)) {
		r.err = errShort
		return nil
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v
}

func (r *spentReader) float() float64 {
	b := r.bytes(8)
	if b == nil {
		return 0
	}
	return math.Float64frombits(binary.BigEndian.Uint64(b))
}

// count reads a count of items of at least min bytes each, refusing one
// that the rest of the record cannot hold.
func (r *spentReader) count(minBytes int) int {
	n := r.uvarint()
	if r.err == nil && n > uint64(len(r.b)/minBytes) {
		r.err = fmt.Errorf("count %d exceeds the record", n)
		return 0
	}
	return int(n)
}

func decodeRateSpent(raw []byte) (exchange.Spent, error) {
	bad := func(err error) (exchange.Spent, error) {
		return exchange.Spent{}, fmt.Errorf("rate_spent: %w: %w", ErrInvalid, err)
	}
	if len(raw) == 0 || raw[0] != rateSpentVersion {
		if len(raw) > 0 {
			return bad(fmt.Errorf("version %d, this binary reads %d", raw[0], rateSpentVersion))
		}
		return bad(errShort)
	}
	r := &spentReader{b: raw[1:]}
	at := r.varint()
	final := r.bytes(1)
	var sp exchange.Spent
	sp.At = time.Unix(0, at)
	if final != nil {
		if final[0] > 1 {
			return bad(fmt.Errorf("final byte %d", final[0]))
		}
		sp.Final = final[0] == 1
	}
	nb := r.count(22) // name (2 bytes at least), cap, burst, two floats, count
	for range nb {
		var b exchange.BucketSpent
		nl := r.uvarint()
		if r.err == nil && (nl == 0 || nl > maxBucketName) {
			return bad(fmt.Errorf("bucket name of %d bytes", nl))
		}
		b.Name = string(r.bytes(nl))
		req, win := r.uvarint(), r.uvarint()
		burst := r.uvarint()
		if r.err == nil && (req > math.MaxInt32 || win > math.MaxInt64 || burst > math.MaxInt32) {
			return bad(fmt.Errorf("bucket %s: cap %d/%d, burst %d", b.Name, req, win, burst))
		}
		b.Cap = exchange.Cap{Requests: int(req), Window: time.Duration(win)}
		b.Burst = int(burst)
		b.PerSecond, b.Tokens = r.float(), r.float()
		nu := r.count(2)
		if r.err != nil {
			break
		}
		b.Units = make([]exchange.SpentUnits, 0, nu)
		var age uint64
		for i := range nu {
			d := r.uvarint()
			if i == 0 {
				age = d
			} else if d > age {
				r.err = fmt.Errorf("bucket %s: age below zero", b.Name)
			} else {
				age -= d
			}
			n := r.uvarint()
			if r.err != nil {
				break
			}
			if age > math.MaxInt64/1000 || n > math.MaxInt64 {
				return bad(fmt.Errorf("bucket %s: %d units %d µs before", b.Name, n, age))
			}
			b.Units = append(b.Units, exchange.SpentUnits{At: time.Unix(0, at-int64(age)*1000), N: int64(n)})
		}
		sp.Buckets = append(sp.Buckets, b)
	}
	if r.err != nil {
		return bad(r.err)
	}
	if len(r.b) != 0 {
		return bad(fmt.Errorf("%d bytes after the record", len(r.b)))
	}
	if err := sp.Validate(); err != nil {
		return bad(err)
	}
	return sp, nil
}
