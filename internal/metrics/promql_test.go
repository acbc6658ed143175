package metrics

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// promqlWords are the PromQL words that look like metric names but are not:
// aggregation operators (they may be followed by by/without before their
// parenthesis), binary and set operators, modifiers and constants. A word
// followed by "(" is a function call and is skipped without a list.
var promqlWords = map[string]bool{
	"sum": true, "min": true, "max": true, "avg": true, "group": true, "stddev": true, "stdvar": true, "count": true,
	"count_values": true, "bottomk": true, "topk": true, "quantile": true, "limitk": true, "limit_ratio": true,
	"and": true, "or": true, "unless": true, "atan2": true, "bool": true, "offset": true,
	"by": true, "without": true, "on": true, "ignoring": true, "group_left": true, "group_right": true,
	"inf": true, "nan": true, "start": true, "end": true,
}

// labelListAfter are the words whose parenthesised list holds label names.
var labelListAfter = map[string]bool{"by": true, "without": true, "on": true, "ignoring": true, "group_left": true, "group_right": true}

func isIdentStart(c byte) bool {
	return c == '_' || c == ':' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func isIdentByte(c byte) bool { return isIdentStart(c) || '0' <= c && c <= '9' }

// promqlMetricNames returns the metric names an expression reads, in order
// of first use. It is a tokenizer, not a parser: it skips strings, comments,
// label matchers {…}, ranges and subqueries […], Grafana variables ($x,
// ${x}), numbers and durations; an identifier followed by "(" is a function,
// one of promqlWords is a keyword, and the parenthesised list after by,
// without, on, ignoring, group_left and group_right holds label names. Every
// other identifier is a metric name. It fails on unbalanced brackets or an
// unterminated string, so that a broken expression is not read as valid.
func promqlMetricNames(expr string) ([]string, error) {
	var names []string
	var stack []byte // open brackets: ( { [
	skipLabels := false
	for i := 0; i < len(expr); {
		c := expr[i]
		switch {
		case c == '"' || c == '\'' || c == '`':
			j := i + 1
			for ; j < len(expr) && expr[j] != c; j++ {
				if expr[j] == '\\' && c != '`' {
					j++
				}
			}
			if j >= len(expr) {
				return nil, fmt.Errorf("unterminated string at %d in %q", i, expr)
			}
			i = j + 1
		case c == '#':
			for i < len(expr) && expr[i] != '\n' {
				i++
			}
		case c == '$':
			i++
			if i < len(expr) && expr[i] == '{' {
				for i < len(expr) && expr[i] != '}' {
					i++
				}
				i++
			} else {
				for i < len(expr) && isIdentByte(expr[i]) {
					i++
				}
			}
		case c == '(' || c == '{' || c == '[':
			stack = append(stack, c)
			i++
			if c == '(' && skipLabels { // by (a, b): label names up to the ")"
				skipLabels = false
				j := strings.IndexByte(expr[i:], ')')
				if j < 0 {
					return nil, fmt.Errorf("unclosed label list at %d in %q", i, expr)
				}
				i += j + 1
				stack = stack[:len(stack)-1]
			}
		case c == ')' || c == '}' || c == ']':
			open := map[byte]byte{')': '(', '}': '{', ']': '['}[c]
			if len(stack) == 0 || stack[len(stack)-1] != open {
				return nil, fmt.Errorf("unbalanced %q at %d in %q", c, i, expr)
			}
			stack = stack[:len(stack)-1]
			i++
		case '0' <= c && c <= '9' || c == '.':
			for i < len(expr) && (isIdentByte(expr[i]) || expr[i] == '.') {
				i++ // 0.5, 1e3, 5m, 0x1f
			}
		case isIdentStart(c):
			j := i
			for j < len(expr) && isIdentByte(expr[j]) {
				j++
			}
			word := expr[i:j]
			i = j
			inside := len(stack) > 0 && stack[len(stack)-1] != '('
			k := j
			for k < len(expr) && (expr[k] == ' ' || expr[k] == '\t' || expr[k] == '\n' || expr[k] == '\r') {
				k++
			}
			next := byte(0)
			if k < len(expr) {
				next = expr[k]
			}
			lower := strings.ToLower(word)
			switch {
			case inside: // a label name in a matcher, or a unit in a range
			case labelListAfter[lower]:
				skipLabels = next == '('
			case promqlWords[lower]:
			case next == '(': // a function
			default:
				if !slices.Contains(names, word) {
					names = append(names, word)
				}
			}
		default:
			i++
		}
	}
	if len(stack) > 0 {
		return nil, fmt.Errorf("unclosed %q in %q", stack[len(stack)-1], expr)
	}
	return names, nil
}

func TestPromQLMetricNames(t *testing.T) {
	cases := []struct {
		expr string
		want []string
	}{
		{`up`, []string{"up"}},
		{`mmbot_kill_switch_tripped == 1`, []string{"mmbot_kill_switch_tripped"}},
		{`sum(mmbot_pnl)`, []string{"mmbot_pnl"}},
		{`rate(mmbot_fills_total[5m])`, []string{"mmbot_fills_total"}},
		{`rate(mmbot_fills_total{instance=~"$instance", job!="x"}[$__rate_interval])`, []string{"mmbot_fills_total"}},
		{`histogram_quantile(0.99, sum by (le) (rate(mmbot_cycle_seconds_bucket{a="b"}[5m])))`, []string{"mmbot_cycle_seconds_bucket"}},
		{`sum without (instance, job) (a) / on (instance) group_left (market) b`, []string{"a", "b"}},
		{`a > on (instance, job) group_left () (b > 0)`, []string{"a", "b"}},
		{`a and ignoring(x) b unless c or bool d`, []string{"a", "b", "c", "d"}},
		{`sum(a) by (reason)`, []string{"a"}},
		{`topk by (x) (3, a offset 5m)`, []string{"a"}},
		{`max_over_time(a[1h:5m]) - 1e3 * .5 + Inf - NaN`, []string{"a"}},
		{`label_replace(a, "dst", "$1", "src", "(.*)") # a comment naming not_a_metric`, []string{"a"}},
		{`a{l="}{[("} + b{l='\''}`, []string{"a", "b"}},
		{`time() - a`, []string{"a"}},
		{"a\n  > on (instance, job) group_left ()\n(b > 0)", []string{"a", "b"}},
		{`a:recorded:rate5m + a`, []string{"a:recorded:rate5m", "a"}},
		{`${datasource} $x`, nil},
	}
	for _, c := range cases {
		got, err := promqlMetricNames(c.expr)
		if err != nil {
			t.Errorf("%q: %v", c.expr, err)
			continue
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%q: names %q, want %q", c.expr, got, c.want)
		}
	}
	for _, bad := range []string{`rate(a[5m]`, `a{b="c"`, `a)`, `sum(a]`, `a{b="c}`, `sum by (x`} {
		if got, err := promqlMetricNames(bad); err == nil {
			t.Errorf("%q: names %q and no error", bad, got)
		}
	}
}
