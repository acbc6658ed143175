package recording

import (
	"encoding/binary"
	"math"
	"math/bits"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
)

// This file decodes the events of a version 2 block's content. Every check
// the format promises is made here: a corrupt block is an error, never a
// panic, and every decoded event passes Validate. Decoded events share
// memory (a book's unchanged side is its predecessor's slice; levels and
// structs come from chunks), which is safe because events from a Reader
// are read-only.

// Chunk sizes of the decoder's arena: a chunk is released when no event
// from it is referenced any more, so a long-held event keeps at most one
// chunk alive.
const (
	arenaLevels = 512
	arenaBooks  = 64
	arenaTrades = 128
)

// arena hands out the decoder's levels and structs from chunks, so that a
// book costs a fraction of an allocation. Nothing it hands out is reused.
type arena struct {
	pl     []exchange.PriceLevel
	lv     []Level
	books  []bookCell
	trades []Trade
}

// bookCell is a Book with the FixedBook its fx points to, allocated
// together.
type bookCell struct {
	Book
	fb FixedBook
}

func (a *arena) levels(n int) ([]exchange.PriceLevel, []Level) {
	if n > cap(a.pl)-len(a.pl) {
		a.pl = make([]exchange.PriceLevel, 0, max(n, arenaLevels))
	}
	if n > cap(a.lv)-len(a.lv) {
		a.lv = make([]Level, 0, max(n, arenaLevels))
	}
	i, j := len(a.pl), len(a.lv)
	a.pl, a.lv = a.pl[:i+n], a.lv[:j+n]
	return a.pl[i : i+n : i+n], a.lv[j : j+n : j+n]
}

func (a *arena) book() *bookCell {
	if len(a.books) == cap(a.books) {
		a.books = make([]bookCell, 0, arenaBooks)
	}
	a.books = a.books[:len(a.books)+1]
	return &a.books[len(a.books)-1]
}

func (a *arena) trade() *Trade {
	if len(a.trades) == cap(a.trades) {
		a.trades = make([]Trade, 0, arenaTrades)
	}
	a.trades = a.trades[:len(a.trades)+1]
	return &a.trades[len(a.trades)-1]
}

// decToken is a token's previous book in the block.
type decToken struct {
	bids, asks    []exchange.PriceLevel
	fbids, fasks  []Level
	tick, min     decimal.Decimal
	tickFx, minFx exchange.Fixed
	seen          bool
	nbids, nasks  uint64 // the sides' lengths, when levels are skipped
	// In fixedOnly mode, the token's book and the buffers its sides are
	// edited in, reused from book to book (and, through the decoder's
	// pools, from block to block).
	cell       *bookCell
	bufB, bufA []Level
}

// blockDecoder reads the events of one block's content.
type blockDecoder struct {
	b     []byte
	pos   int
	err   error
	strs  []string
	toks  []decToken
	exch  int64
	recv  int64
	cache *decimalCache
	arena arena
	none  []exchange.PriceLevel // an empty, non-nil side
	noneF []Level
	skip  bool // books without their levels (Reader.SkipLevels)
	// fixedOnly decodes books' levels in Fixed units only, leaving Bids
	// and Asks nil, into memory reused from book to book
	// (Reader.FixedLevelsOnly).
	fixedOnly bool
	// The fixedOnly books and level buffers of the tokens of earlier
	// blocks, for the tokens of this one.
	cellPool []*bookCell
	bufPool  [][]Level
	// skipCell is the one book of the skip mode.
	skipCell *bookCell
}

// fail records the first error; reads after it return zeros.
func (d *blockDecoder) fail(format string, a ...any) {
	if d.err == nil {
		d.err = corrupt(format, a...)
	}
	d.pos = len(d.b)
}

// uvarintAt reads the unsigned varint at b[pos:] and its length (0 when
// there is none): the one- and two-byte forms, the common ones, inline.
func uvarintAt(b []byte, pos int) (uint64, int) {
	if pos+1 < len(b) {
		if c := b[pos]; c < 0x80 {
			return uint64(c), 1
		} else if d := b[pos+1]; d < 0x80 {
			return uint64(c&0x7f) | uint64(d)<<7, 2
		}
	}
	return uvarintSlow(b, pos)
}

func uvarintSlow(b []byte, pos int) (uint64, int) {
	if pos >= len(b) {
		return 0, 0
	}
	v, n := binary.Uvarint(b[pos:])
	return v, max(n, 0)
}

func (d *blockDecoder) uvarint() uint64 {
	v, n := uvarintAt(d.b, d.pos)
	if n == 0 {
		d.fail("bad varint at byte %d of the block", d.pos)
		return 0
	}
	d.pos += n
	return v
}

func (d *blockDecoder) varint() int64 {
	v, n := binary.Varint(d.b[d.pos:])
	if n <= 0 {
		d.fail("bad varint at byte %d of the block", d.pos)
		return 0
	}
	d.pos += n
	return v
}

func (d *blockDecoder) byte() byte {
	if d.pos >= len(d.b) {
		d.fail("block content ends inside an event")
		return 0
	}
	c := d.b[d.pos]
	d.pos++
	return c
}

// amount reads a non-negative Fixed value.
func (d *blockDecoder) amount() exchange.Fixed {
	v := d.uvarint()
	if v > math.MaxInt64 {
		d.fail("amount %d out of range", v)
		return 0
	}
	return exchange.Fixed(v)
}

// dec returns f as a decimal: the zero Decimal for 0 (an absent field),
// else the shared decimal of the cache.
func (d *blockDecoder) dec(f exchange.Fixed) decimal.Decimal {
	if f == 0 {
		return decimal.Decimal{}
	}
	return d.cache.get(f)
}

// reset starts decoding a block's content: its string table.
func (d *blockDecoder) reset(content []byte) error {
	d.b, d.pos, d.err, d.exch, d.recv = content, 0, nil, 0, 0
	d.cache.init()
	if d.none == nil {
		d.none, d.noneF = make([]exchange.PriceLevel, 0), make([]Level, 0)
	}
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.fail("string table of %d entries in %d bytes", n, len(d.b))
	}
	d.strs = d.strs[:0]
	for i := uint64(0); i < n && d.err == nil; i++ {
		l := d.uvarint()
		if l > uint64(len(d.b)-d.pos) {
			d.fail("string %d of %d bytes past the end of the block", i+1, l)
			break
		}
		d.strs = append(d.strs, string(d.b[d.pos:d.pos+int(l)]))
		d.pos += int(l)
	}
	for i := range d.toks {
		ts := &d.toks[i]
		if ts.cell != nil {
			d.cellPool = append(d.cellPool, ts.cell)
		}
		for _, b := range [2][]Level{ts.bufB, ts.bufA} {
			if b != nil {
				d.bufPool = append(d.bufPool, b)
			}
		}
	}
	if cap(d.toks) < len(d.strs)+1 {
		d.toks = make([]decToken, len(d.strs)+1)
	}
	d.toks = d.toks[:len(d.strs)+1]
	clear(d.toks)
	return d.err
}

// str reads a string reference.
func (d *blockDecoder) str() (string, uint64) {
	r := d.uvarint()
	switch {
	case r == 0:
		return "", 0
	case r > uint64(len(d.strs)):
		d.fail("string reference %d of a table of %d", r, len(d.strs))
		return "", 0
	}
	return d.strs[r-1], r
}

// next decodes one event.
func (d *blockDecoder) next() (Event, error) {
	tag := d.byte()
	kind := Kind(tag & tagKindMask)
	allowed := byte(tagKindMask | tagExchange | tagReceived)
	switch kind {
	case KindBook:
		allowed |= tagSameTerms
	case KindTrade:
		allowed |= tagTakerBuy | tagTakerSell
	case KindMeta:
	default:
		if d.err == nil {
			d.fail("event kind %d", kind)
		}
		return Event{}, d.err
	}
	if tag&^allowed != 0 {
		d.fail("%s tag %#02x", kind, tag)
		return Event{}, d.err
	}
	tok, tref := d.str()
	mkt, _ := d.str()
	var st Stamp
	if tag&tagExchange != 0 {
		d.exch += d.varint()
		if d.exch <= 0 {
			d.fail("exchange time %d ms", d.exch)
		}
		st.Exchange = fromMillis(d.exch)
	}
	if tag&tagReceived != 0 {
		d.recv += d.varint()
		if d.recv <= 0 {
			d.fail("receive time %d ns", d.recv)
		}
		st.Received = fromNanos(d.recv)
	}
	if tag&(tagExchange|tagReceived) == 0 {
		d.fail("%s without a time", kind)
	}
	if d.err != nil {
		return Event{}, d.err
	}
	switch kind {
	case KindBook:
		return d.book(tag, st, tok, tref, mkt)
	case KindTrade:
		return d.trade(tag, st, tok, mkt)
	}
	return d.meta(st, tok, mkt)
}

func (d *blockDecoder) book(tag byte, st Stamp, tok string, tref uint64, mkt string) (Event, error) {
	if tok == "" {
		return Event{}, invalid("book without token")
	}
	ts := &d.toks[tref]
	if tag&tagSameTerms != 0 {
		if !ts.seen {
			d.fail("book of %s refers to an earlier book of the token in the block, which has none", tok)
			return Event{}, d.err
		}
	} else {
		ts.tickFx, ts.minFx = d.amount(), d.amount()
		ts.tick, ts.min = d.dec(ts.tickFx), d.dec(ts.minFx)
	}
	if !ts.seen {
		ts.bids, ts.asks, ts.fbids, ts.fasks, ts.seen = d.none, d.none, d.noneF, d.noneF, true
		if d.fixedOnly {
			ts.bids, ts.asks = nil, nil
		}
		ts.nbids, ts.nasks = 0, 0
	}
	if d.skip {
		ts.nbids, ts.nasks = d.skipSide(ts.nbids), d.skipSide(ts.nasks)
	} else if d.fixedOnly {
		ts.fbids = d.sideInPlace(ts.fbids, &ts.bufB, true)
		ts.fasks = d.sideInPlace(ts.fasks, &ts.bufA, false)
	} else {
		ts.bids, ts.fbids = d.side(ts.bids, ts.fbids, true)
		ts.asks, ts.fasks = d.side(ts.asks, ts.fasks, false)
	}
	if d.err != nil {
		ts.seen = false
		return Event{}, d.err
	}
	var c *bookCell
	if d.skip {
		// Without levels, one book is reused (SkipLevels' contract).
		if d.skipCell == nil {
			d.skipCell = new(bookCell)
		}
		c = d.skipCell
	} else if d.fixedOnly {
		// One book per token, overwritten (FixedLevelsOnly's contract).
		if ts.cell == nil {
			if n := len(d.cellPool); n > 0 {
				ts.cell, d.cellPool = d.cellPool[n-1], d.cellPool[:n-1]
			} else {
				ts.cell = new(bookCell)
			}
		}
		c = ts.cell
	} else {
		c = d.arena.book()
	}
	c.fb = FixedBook{Bids: ts.fbids, Asks: ts.fasks}
	c.Book = Book{Stamp: st, TokenID: tok, Market: mkt, Bids: ts.bids, Asks: ts.asks,
		TickSize: ts.tick, MinOrderSize: ts.min, fx: &c.fb}
	return BookEvent(&c.Book), nil
}

// side decodes one side of a book as an edit of the token's previous side
// (see blockEncoder.appendSide), checking that it stays sorted best first
// with positive prices.
func (d *blockDecoder) side(prev []exchange.PriceLevel, prevF []Level, desc bool) ([]exchange.PriceLevel, []Level) {
	keep, drop, add := d.uvarint(), d.uvarint(), d.uvarint()
	np := uint64(len(prev))
	switch {
	case d.err != nil:
		return nil, nil
	case keep > np || drop > np-keep:
		d.fail("side keeps %d and drops %d of %d levels", keep, drop, np)
		return nil, nil
	case add > uint64(len(d.b)-d.pos)/2:
		d.fail("side adds %d levels in %d bytes", add, len(d.b)-d.pos)
		return nil, nil
	case add == 0 && drop == 0:
		return prev, prevF
	}
	k, rest := int(keep), int(np-keep-drop)
	n := k + int(add) + rest
	if n == 0 {
		return d.none, d.noneF
	}
	pl, lv := d.arena.levels(n)
	copy(pl, prev[:k])
	copy(lv, prevF[:k])
	anchor := exchange.Fixed(0)
	if k > 0 {
		anchor = lv[k-1].Price
	}
	if add > 0 {
		sc := d.byte()
		pe, se := int(sc>>4), int(sc&0x0f)
		if pe > maxScale || se > maxScale {
			d.fail("scale byte %#02x", sc)
			return nil, nil
		}
		pq, pmax, sq, smax := scaleOf[pe], scaleMax[pe], scaleOf[se], scaleMax[se]
		b, pos, cache := d.b, d.pos, d.cache
		for i := k; i < k+int(add); i++ {
			// The varints of the step and the size, with their common
			// one- and two-byte forms inline.
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
					return nil, nil
				}
				pos += m + m2
			}
			if step == 0 || step > pmax || size > smax {
				d.pos = pos
				d.fail("level %d: price step %d or size %d out of range (scales %d, %d)", i, step, size, pe, se)
				return nil, nil
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
					return nil, nil
				}
			default:
				if delta > math.MaxInt64-anchor {
					d.pos = pos
					d.fail("ask %d: price out of range", i)
					return nil, nil
				}
				price = anchor + delta
			}
			sz := exchange.Fixed(int64(size) * sq)
			pd, ok := cache.fast(price)
			if !ok {
				pd = cache.get(price)
			}
			sd, ok := cache.fast(sz)
			if !ok {
				sd = cache.get(sz)
			}
			pl[i] = exchange.PriceLevel{Price: pd, Size: sd}
			lv[i] = Level{Price: price, Size: sz}
			anchor = price
		}
		d.pos = pos
	}
	j := k + int(add)
	copy(pl[j:], prev[np-uint64(rest):])
	copy(lv[j:], prevF[np-uint64(rest):])
	if j > 0 && j < n && (desc && lv[j].Price >= lv[j-1].Price || !desc && lv[j].Price <= lv[j-1].Price) {
		d.fail("level %d: price %s out of order (best first)", j, lv[j].Price)
		return nil, nil
	}
	return pl, lv
}

// skipSide reads past one side, keeping only its length: prev is the
// length of the token's previous side.
func (d *blockDecoder) skipSide(prev uint64) uint64 {
	keep, drop, add := d.uvarint(), d.uvarint(), d.uvarint()
	switch {
	case d.err != nil:
		return 0
	case keep > prev || drop > prev-keep:
		d.fail("side keeps %d and drops %d of %d levels", keep, drop, prev)
		return 0
	case add > uint64(len(d.b)-d.pos)/2:
		d.fail("side adds %d levels in %d bytes", add, len(d.b)-d.pos)
		return 0
	}
	if add > 0 {
		d.byte() // the scales
		// 2*add varints: count the bytes that end one (high bit clear),
		// eight at a time while the last one is further on.
		b, pos, left := d.b, d.pos, 2*add
		for pos+8 <= len(b) {
			ends := uint64(bits.OnesCount64(^binary.LittleEndian.Uint64(b[pos:]) & 0x8080808080808080))
			if ends >= left {
				break
			}
			left -= ends
			pos += 8
		}
		for ; left > 0 && pos < len(b); pos++ {
			if b[pos] < 0x80 {
				left--
			}
		}
		if left > 0 {
			d.fail("block content ends inside a book's levels")
			return 0
		}
		d.pos = pos
	}
	return prev - drop + add
}

func (d *blockDecoder) trade(tag byte, st Stamp, tok, mkt string) (Event, error) {
	price, size := d.amount(), d.amount()
	if d.err != nil {
		return Event{}, d.err
	}
	t := d.arena.trade()
	*t = Trade{Stamp: st, TokenID: tok, Market: mkt, Price: d.cache.get(price), Size: d.cache.get(size)}
	switch tag & (tagTakerBuy | tagTakerSell) {
	case tagTakerBuy:
		t.TakerSide = exchange.Buy
	case tagTakerSell:
		t.TakerSide = exchange.Sell
	case tagTakerBuy | tagTakerSell:
		d.fail("trade with both taker sides")
		return Event{}, d.err
	}
	switch {
	case tok == "":
		return Event{}, invalid("trade without token")
	case price == 0 || size == 0:
		return Event{}, invalid("trade %s: price %s and size %s must be positive", tok, price, size)
	}
	return TradeEvent(t), nil
}

func (d *blockDecoder) meta(st Stamp, tok, mkt string) (Event, error) {
	flags := d.uvarint()
	if flags&^metaAll != 0 {
		d.fail("meta flags %#x", flags)
		return Event{}, d.err
	}
	m := &Meta{Stamp: st, TokenID: tok, Market: mkt}
	if flags&metaTick != 0 {
		m.TickSize = d.dec(d.amount())
	}
	if flags&metaMinSize != 0 {
		m.MinOrderSize = d.dec(d.amount())
	}
	if flags&metaEndDate != 0 {
		sec, ns := d.varint(), d.uvarint()
		if ns >= uint64(time.Second) {
			d.fail("end date nanoseconds %d", ns)
		}
		m.EndDate = time.Unix(sec, int64(ns)).UTC()
	}
	if flags&metaResolved != 0 {
		m.Resolved = true
		m.Payout = d.cache.get(d.amount())
	}
	if flags&metaRewardMaxSpread != 0 {
		m.RewardMaxSpread = d.dec(d.amount())
	}
	if flags&metaRewardMinSize != 0 {
		m.RewardMinSize = d.dec(d.amount())
	}
	if flags&metaRewardDailyRate != 0 {
		m.RewardDailyRate = d.dec(d.amount())
	}
	if flags&metaSecondsDelay != 0 {
		v := d.uvarint()
		if v == 0 || v > MaxSecondsDelay {
			d.fail("seconds_delay %d", v)
		}
		m.SecondsDelay = int64(v)
	}
	m.NegRisk = flags&metaNegRisk != 0
	if flags&metaQuestion != 0 {
		if m.Question, _ = d.str(); m.Question == "" && d.err == nil {
			d.fail("meta question: an empty string")
		}
	}
	if flags&metaSlug != 0 {
		if m.Slug, _ = d.str(); m.Slug == "" && d.err == nil {
			d.fail("meta slug: an empty string")
		}
	}
	if d.err != nil {
		return Event{}, d.err
	}
	e := MetaEvent(m)
	if err := e.Validate(); err != nil {
		return Event{}, err
	}
	return e, nil
}
