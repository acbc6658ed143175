package exchange

import (
	"encoding/base64"
	"strconv"
)

// EncodeCursor returns the order-book cursor for an offset: the standard
// base64 of its decimal digits (0 → "MA==", −1 → "LTE=").
func EncodeCursor(offset int64) string {
	return base64.StdEncoding.EncodeToString([]byte(strconv.FormatInt(offset, 10)))
}

// DecodeCursor returns the offset a cursor encodes; "" is offset 0. It
// reports false for a cursor that is not base64 of a decimal integer.
func DecodeCursor(c string) (int64, bool) {
	if c == "" {
		return 0, true
	}
	b, err := base64.StdEncoding.DecodeString(c)
	if err != nil {
		return 0, false
	}
	n, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		return 0, false
	}
	return n, true
}
