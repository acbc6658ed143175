package sim

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"testing"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/signer"
	"github.com/shopspring/decimal"
)

// benchEnv starts an exchange without rate limits for benchmarks.
func benchEnv(b *testing.B, flow bool) (*Exchange, URLs) {
	b.Helper()
	ex, err := New(Config{Seed: 3, Markets: 10, Manual: true, NoRateLimits: true, Flow: FlowConfig{Disabled: !flow},
		Rand: rand.NewChaCha8([32]byte{9})})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	urls, err := ex.Start(ctx)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cancel(); ex.Close() })
	return ex, urls
}

func post(b *testing.B, hc *http.Client, req *http.Request) {
	resp, err := hc.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b.Fatalf("status %d", resp.StatusCode)
	}
}

// BenchmarkHTTPBooks: POST /books of two tokens with background-maker
// ladders, over loopback.
func BenchmarkHTTPBooks(b *testing.B) {
	ex, urls := benchEnv(b, true)
	s := ex.markets[0]
	body := []byte(fmt.Sprintf(`[{"token_id":%q},{"token_id":%q}]`, s.m.TokenIDs[0], s.m.TokenIDs[1]))
	hc := &http.Client{}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		req, _ := http.NewRequest(http.MethodPost, urls.CLOB+"/books", bytes.NewReader(body))
		post(b, hc, req)
	}
}

// BenchmarkHTTPPlaceOrders: POST /orders of one signed order (L2 check,
// EIP-712 verification, matching) over loopback; orders are signed before
// the timer starts.
func BenchmarkHTTPPlaceOrders(b *testing.B) {
	ex, urls := benchEnv(b, false)
	creds, err := ex.CreateAccount(AccountOptions{Fund: decimal.NewFromInt(1_000_000_000)})
	if err != nil {
		b.Fatal(err)
	}
	key, _ := signer.ParseKey(creds.PrivateKey)
	sg, err := signer.New(signer.DefaultConfig(), signer.Account{Key: key, Owner: creds.APIKey})
	if err != nil {
		b.Fatal(err)
	}
	l2, err := signer.NewL2(signer.Credentials{APIKey: creds.APIKey, Secret: creds.Secret, Passphrase: creds.Passphrase}, creds.Address, nil)
	if err != nil {
		b.Fatal(err)
	}
	var s *mstate
	for _, m := range ex.markets {
		if !m.closed && m.m.TickSize.String() == "0.01" {
			s = m
			break
		}
	}
	r := rand.New(rand.NewPCG(1, 1))
	bodies := make([][]byte, b.N)
	for i := range bodies {
		outcome := r.IntN(2)
		so, err := sg.Sign(signer.OrderRequest{TokenID: s.m.TokenIDs[outcome], ConditionID: s.m.ConditionID, Side: exchange.Buy,
			Price: decimal.New(int64(30+r.IntN(20)), -2), Size: decimal.NewFromInt(int64(5 + r.IntN(20))), TickSize: s.m.TickSize})
		if err != nil {
			b.Fatal(err)
		}
		bodies[i], _ = json.Marshal([]exchange.PlacementItem{so.Item})
	}
	hc := &http.Client{}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		h, err := l2.AuthHeaders(http.MethodPost, "/orders", bodies[i])
		if err != nil {
			b.Fatal(err)
		}
		req, _ := http.NewRequest(http.MethodPost, urls.CLOB+"/orders", bytes.NewReader(bodies[i]))
		for k, v := range h {
			req.Header[k] = v
		}
		post(b, hc, req)
	}
}
