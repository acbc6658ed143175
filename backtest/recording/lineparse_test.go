package recording

import (
	"bytes"
	"encoding/json"
	"testing"
)

// parseLineStd is the reference decoder: encoding/json into wireLine.
func parseLineStd(line []byte) (Event, error) {
	var w wireLine
	if err := json.Unmarshal(line, &w); err != nil {
		return Event{}, err
	}
	return w.event()
}

var decoderCases = []string{
	`{"kind":"book","token":"1","ts_ms":1,"bids":[{"price":"0.4","size":"1"}],"asks":[]}`,
	` { "kind" : "trade" , "token" : "a\"b\u00e9" , "ts_ms" : 17 , "price" : 0.5 , "size" : "2.000000" } `,
	`{"kind":"meta","market":"m","recv_ns":5,"x":{"y":[1,2,{"z":null}],"w":true},"tick":"0.010","resolved":false}`,
	`{"kind":"book","token":"1","ts_ms":1,"bids":null,"asks":[{"size":"3","price":".5","extra":[]}]}`,
	`{"kind":"trade","token":"1","ts_ms":1,"price":"5.e-1","size":"1e2"}`,
	`{"kind":"trade","token":"1","ts_ms":1,"price":"0.5","size":"1"} x`,
	`{"kind":"trade","token":"1","ts_ms":1.5,"price":"0.5","size":"1"}`,
	`{"kind":"trade","token":"1","ts_ms":01,"price":"0.5","size":"1"}`,
	`{"kind":"trade","token":"1","ts_ms":1,"price":"0.5","size":"1",}`,
	`{"kind":"trade","token":"1","ts_ms":1,"price":"0.5","size":"1","taker":"BUY","taker":"SELL"}`,
	"{\"kind\":\"trade\",\"token\":\"\xff\",\"ts_ms\":1,\"price\":\"0.5\",\"size\":\"1\"}",
	"{\"kind\":\"trade\",\"token\":\"a\tb\",\"ts_ms\":1,\"price\":\"0.5\",\"size\":\"1\"}",
	`{"kind":"trade","token":"1","ts_ms":1,"price":"-0","size":"1"}`,
	`{"kind":"meta","token":"1","ts_ms":1,"end_date":"2026-11-03T00:00:00.5+01:00"}`,
	`{"kind":"book","token":"1","ts_ms":1,"bids":[null]}`,
	`{"kind":"book","token":"1","ts_ms":1,"bids":[{"price":"0.4","size":"1"}]]`,
	`{"kind":null,"token":"1"}`,
	`{"KIND":"book","token":"1","ts_ms":1}`,
}

func TestDecoderMatchesEncodingJSON(t *testing.T) {
	for _, e := range sampleEvents(t) {
		decoderCases = append(decoderCases, string(bytes.TrimSuffix(AppendLine(nil, e), []byte("\n"))))
	}
	accepted := 0
	for _, c := range decoderCases {
		if compareDecoders(t, []byte(c)) {
			accepted++
		}
	}
	if accepted < 12 {
		t.Errorf("only %d of the cases decoded; the table has lost its accepting cases", accepted)
	}
}

// compareDecoders checks that what the fast decoder accepts, encoding/json
// decodes to the same event, and that canonical lines are accepted by both.
func compareDecoders(t *testing.T, line []byte) bool {
	t.Helper()
	fast, ferr := ParseLine(line)
	std, serr := parseLineStd(line)
	if ferr == nil {
		if serr != nil {
			t.Fatalf("fast decoder accepted what encoding/json rejects (%v):\n%s", serr, line)
		}
		if a, b := AppendLine(nil, fast), AppendLine(nil, std); !bytes.Equal(a, b) {
			t.Fatalf("decoders disagree on\n%s\nfast: %sstd:  %s", line, a, b)
		}
	}
	if serr == nil {
		canon := bytes.TrimSuffix(AppendLine(nil, std), []byte("\n"))
		back, err := ParseLine(canon)
		if err != nil {
			t.Fatalf("fast decoder rejects a canonical line (%v):\n%s", err, canon)
		}
		if !bytes.Equal(AppendLine(nil, back), AppendLine(nil, std)) {
			t.Fatalf("canonical line decodes differently:\n%s", canon)
		}
	}
	return ferr == nil
}

func FuzzDecoderDifferential(f *testing.F) {
	for _, c := range decoderCases {
		f.Add([]byte(c))
	}
	for _, c := range parseLineCases {
		f.Add([]byte(c.line))
	}
	f.Add(bytes.TrimSuffix(AppendLine(nil, marketMeta()), []byte("\n")))
	f.Fuzz(func(t *testing.T, line []byte) { compareDecoders(t, line) })
}
