package signer

import (
	"bytes"
	"testing"

	"github.com/mmbot/mmbot/exchange"
)

// setField sets one of the wire order's string fields (index modulo 12) or,
// for index 12, the signature type.
func setField(o *exchange.SignedOrder, i uint8, val string, st int) {
	switch i % 13 {
	case 0:
		o.Salt = val
	case 1:
		o.Maker = val
	case 2:
		o.Signer = val
	case 3:
		o.TokenID = val
	case 4:
		o.MakerAmount = val
	case 5:
		o.TakerAmount = val
	case 6:
		o.Side = exchange.Side(val)
	case 7:
		o.Timestamp = val
	case 8:
		o.Metadata = val
	case 9:
		o.Builder = val
	case 10:
		o.Signature = val
	case 11:
		o.ConditionID = val
	case 12:
		o.SignatureType = st
	}
}

// FuzzVerifyOrder changes one field of a validly signed order (of each
// signature type) and checks that VerifyOrder never panics and accepts the
// result only if the signed content and the signature bytes are unchanged.
func FuzzVerifyOrder(f *testing.F) {
	for i := range uint8(13) {
		f.Add(uint8(0), i, "1", 0)
		f.Add(uint8(3), i, "0x"+OrderType, 3)
	}
	for _, tm := range tamperings {
		o := exchange.SignedOrder{}
		tm.f(&o)
		f.Add(uint8(0), uint8(0), o.Salt+o.TokenID+o.Timestamp, 1)
	}
	v := testVerifier(f, DefaultConfig())
	signed := make([]exchange.SignedOrder, 4)
	for st := range signed {
		so, err := testSigner(f, DefaultConfig(), st).Sign(testRequest(f, st%2 == 1))
		if err != nil {
			f.Fatal(err)
		}
		signed[st] = so.Item.Order
	}
	own := owners(f)
	f.Fuzz(func(t *testing.T, typ, field uint8, val string, st int) {
		orig := signed[typ%4]
		negRisk := typ%4%2 == 1
		o := orig
		setField(&o, field, val, st)
		if _, err := v.VerifyOrder(o, negRisk, own); err != nil {
			return
		}
		a, err1 := decodeOrder(orig)
		b, err2 := decodeOrder(o)
		sa, _ := decodeHex0x(orig.Signature)
		sb, _ := decodeHex0x(o.Signature)
		if err1 != nil || err2 != nil || *a != *b || !bytes.Equal(sa, sb) {
			t.Fatalf("accepted a changed order: field %d = %q", field%13, val)
		}
	})
}
