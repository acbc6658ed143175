package recording

import (
	"math"

	"github.com/mmbot/mmbot/exchange"
)

// sideInPlace is side for the fixedOnly mode: it decodes one side of a book
// as an edit of the token's previous side prev, in the token's buffer *buf
// (prev is empty or (*buf)[:len(prev)]), so that a book costs no
// allocation once the buffer is large enough. The checks are side's.
func (d *blockDecoder) sideInPlace(prev []Level, buf *[]Level, desc bool) []Level {
	keep, drop, add := d.uvarint(), d.uvarint(), d.uvarint()
	np := uint64(len(prev))
	switch {
	case d.err != nil:
		return nil
	case keep > np || drop > np-keep:
		d.fail("side keeps %d and drops %d of %d levels", keep, drop, np)
		return nil
	case add > uint64(len(d.b)-d.pos)/2:
		d.fail("side adds %d levels in %d bytes", add, len(d.b)-d.pos)
		return nil
	case add == 0 && drop == 0:
		return prev
	}
	k, rest := int(keep), int(np-keep-drop)
	n := k + int(add) + rest
	if n == 0 {
		return d.noneF
	}
	lv := *buf
	if lv == nil {
		if m := len(d.bufPool); m > 0 {
			lv, d.bufPool = d.bufPool[m-1][:0], d.bufPool[:m-1]
		}
	}
	if cap(lv) < n || len(prev) > 0 && &lv[:1][0] != &prev[0] {
		// Too small, or prev is not in it (the empty side): start a
		// buffer from prev's kept levels and rest.
		if cap(lv) < n {
			lv = make([]Level, 0, max(n+n/4, 32))
		}
		lv = lv[:n]
		copy(lv, prev[:k])
		copy(lv[k+int(add):], prev[int(np)-rest:])
	} else {
		// Edit in place: move the rest first (the added levels may take
		// its old place), the kept levels stay.
		lv = lv[:n]
		copy(lv[k+int(add):], prev[int(np)-rest:])
	}
	*buf = lv
	anchor := exchange.Fixed(0)
	if k > 0 {
		anchor = lv[k-1].Price
	}
	if add > 0 {
		sc := d.byte()
		pe, se := int(sc>>4), int(sc&0x0f)
		if pe > maxScale || se > maxScale {
			d.fail("scale byte %#02x", sc)
			return nil
		}
		pq, pmax, sq, smax := scaleOf[pe], scaleMax[pe], scaleOf[se], scaleMax[se]
		b, pos := d.b, d.pos
		for i := k; i < k+int(add); i++ {
			var step, size uint64
			if pos+3 < len(b) && b[pos] < 0x80 && b[pos+1] < 0x80 {
				step, size = uint64(b[pos]), uint64(b[pos+1])
				pos += 2
			} else if pos+3 < len(b) && b[pos] < 0x80 && b[pos+2] < 0x80 {
				step, size = uint64(b[pos]), uint64(b[pos+1]&0x7f)|uint64(b[pos+2])<<7
				pos += 3
			} else {
				var m, m2 int
				step, m = uvarintAt(b, pos)
				size, m2 = uvarintAt(b, pos+m)
				if m <= 0 || m2 <= 0 {
					d.pos = pos
					d.fail("bad varint at byte %d of the block", pos)
					return nil
				}
				pos += m + m2
			}
			if step == 0 || step > pmax || size > smax {
				d.pos = pos
				d.fail("level %d: price step %d or size %d out of range (scales %d, %d)", i, step, size, pe, se)
				return nil
			}
			delta := exchange.Fixed(int64(step) * pq)
			var price exchange.Fixed
			switch {
			case i == 0:
				price = delta
			case desc:
				price = anchor - delta
				if price <= 0 {
					d.pos = pos
					d.fail("bid %d: price %d not positive", i, price)
					return nil
				}
			default:
				if delta > math.MaxInt64-anchor {
					d.pos = pos
					d.fail("ask %d: price out of range", i)
					return nil
				}
				price = anchor + delta
			}
			lv[i] = Level{Price: price, Size: exchange.Fixed(int64(size) * sq)}
			anchor = price
		}
		d.pos = pos
	}
	if j := k + int(add); j > 0 && j < n && (desc && lv[j].Price >= lv[j-1].Price || !desc && lv[j].Price <= lv[j-1].Price) {
		d.fail("level %d: price %s out of order (best first)", j, lv[j].Price)
		return nil
	}
	return lv
}
