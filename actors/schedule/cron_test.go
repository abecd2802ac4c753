package schedule_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/orcr-go/orcr/actors/schedule"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// set returns the mask with the bits of vals.
func set(vals ...int) uint64 {
	var m uint64
	for _, v := range vals {
		m |= 1 << v
	}
	return m
}

// span returns the mask of lo..hi stepping by step.
func span(lo, hi, step int) uint64 {
	var m uint64
	for v := lo; v <= hi; v += step {
		m |= 1 << v
	}
	return m
}

type masks struct {
	Minute, Hour, Dom, Month, Dow uint64
	AnyDom, AnyDow                bool
}

var (
	allMin   = span(0, 59, 1)
	allHour  = span(0, 23, 1)
	allDom   = span(1, 31, 1)
	allMonth = span(1, 12, 1)
	allDow   = span(0, 6, 1)
)

func TestParseCronValid(t *testing.T) {
	every := masks{allMin, allHour, allDom, allMonth, allDow, true, true}
	with := func(f func(*masks)) masks { m := every; f(&m); return m }
	tests := []struct {
		expr string
		want masks
	}{
		{"* * * * *", every},
		{" *\t*  * *\n* ", every},
		{"5 * * * *", with(func(m *masks) { m.Minute = set(5) })},
		{"00 09 * * *", with(func(m *masks) { m.Minute, m.Hour = set(0), set(9) })},
		{"*/15 * * * *", with(func(m *masks) { m.Minute = set(0, 15, 30, 45) })},
		{"5/15 * * * *", with(func(m *masks) { m.Minute = set(5, 20, 35, 50) })}, // L3: N/S is N-max/S
		{"1-5/2 * * * *", with(func(m *masks) { m.Minute = set(1, 3, 5) })},
		{"1-5 * * * *", with(func(m *masks) { m.Minute = span(1, 5, 1) })},
		{"7-7 * * * *", with(func(m *masks) { m.Minute = set(7) })},
		{"*/60 * * * *", with(func(m *masks) { m.Minute = set(0) })},  // a step past the range keeps the low end
		{"5/59 * * * *", with(func(m *masks) { m.Minute = set(5) })},  // likewise
		{"1-1/2 * * * *", with(func(m *masks) { m.Minute = set(1) })}, // likewise
		{"*/99999999999 * * * *", with(func(m *masks) { m.Minute = set(0) })},
		{"1,2,10-12,*/20 * * * *", with(func(m *masks) { m.Minute = set(0, 1, 2, 10, 11, 12, 20, 40) })},
		{"0 0-23/6 * * *", with(func(m *masks) { m.Minute, m.Hour = set(0), set(0, 6, 12, 18) })},
		{"59 23 31 12 6", masks{set(59), set(23), set(31), set(12), set(6), false, false}},
		{"0 0 1 1 0", masks{set(0), set(0), set(1), set(1), set(0), false, false}},
		{"* * * * 7", with(func(m *masks) { m.Dow, m.AnyDow = set(0), false })},   // 7 is Sunday
		{"* * * * 0,7", with(func(m *masks) { m.Dow, m.AnyDow = set(0), false })}, // both Sunday
		{"* * * * 5-7", with(func(m *masks) { m.Dow, m.AnyDow = set(0, 5, 6), false })},
		{"* * * * 0-7", with(func(m *masks) { m.AnyDow = false })},
		{"* * * * */2", with(func(m *masks) { m.Dow, m.AnyDow = set(0, 2, 4, 6), false })},
		{"* * * * 1/3", with(func(m *masks) { m.Dow, m.AnyDow = set(0, 1, 4), false })}, // 1,4,7
		{"* * */1 * *", with(func(m *masks) { m.AnyDom = false })},                      // restricted though it is every day
		{"* * *,1 * *", with(func(m *masks) { m.AnyDom = false })},
		{"* * 1-31 * *", with(func(m *masks) { m.AnyDom = false })},
		{"* * * */3 *", with(func(m *masks) { m.Month = set(1, 4, 7, 10) })},
		{"* * * 2/5 *", with(func(m *masks) { m.Month = set(2, 7, 12) })},
		{"* * 2/10 * *", with(func(m *masks) { m.Dom, m.AnyDom = set(2, 12, 22), false })},
	}
	for _, tt := range tests {
		c, err := schedule.ParseCron(tt.expr)
		if err != nil {
			t.Errorf("ParseCron(%q): %v", tt.expr, err)
			continue
		}
		var got masks
		got.Minute, got.Hour, got.Dom, got.Month, got.Dow, got.AnyDom, got.AnyDow = c.Masks()
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("ParseCron(%q) fields (-want +got):\n%s", tt.expr, diff)
		}
		if c.String() != tt.expr {
			t.Errorf("ParseCron(%q).String() = %q, want the text as given", tt.expr, c.String())
		}
	}
}

func TestParseCronErrors(t *testing.T) {
	tests := []struct {
		expr  string
		field string // details.field, and named in the message; "" for a field-count error
		want  string // a fragment of the message
	}{
		{"", "", "want 5 fields"},
		{"   ", "", "got 0"},
		{"* * * *", "", "got 4"},
		{"* * * * * *", "", "seconds and year fields are not supported"},
		{"0 0 * * * 2026", "", "got 6"},
		{"@daily", "", "macros such as @daily are not supported"},
		{"@every 5m", "", "macros"},
		{"CRON_TZ=UTC * * * * *", "", "time-zone prefix is not supported"},
		{"TZ=UTC 0 0 * * *", "", "time-zone prefix"},
		{"60 * * * *", "minute", "minute field: 60 is out of range 0-59"},
		{"0-60 * * * *", "minute", "minute field: 60 in \"0-60\" is out of range 0-59"},
		{"99999999999999999999 * * * *", "minute", "out of range 0-59"},
		{"* 24 * * *", "hour", "out of range 0-23"},
		{"* * 0 * *", "day-of-month", "out of range 1-31"},
		{"* * 32 * *", "day-of-month", "out of range 1-31"},
		{"* * * 0 *", "month", "out of range 1-12"},
		{"* * * 13 *", "month", "out of range 1-12"},
		{"* * * * 8", "day-of-week", "out of range 0-7"},
		{"* * * * 1-8", "day-of-week", "out of range 0-7"},
		{"* * * JAN *", "month", "month field: \"JAN\" is not a number (month and weekday names are not supported)"},
		{"* * * jan-mar *", "month", "names are not supported"},
		{"* * * * MON", "day-of-week", "names are not supported"},
		{"* * * * mon-fri", "day-of-week", "names are not supported"},
		{"* * ? * *", "day-of-month", "?, L, W and # are not supported"},
		{"* * * * ?", "day-of-week", "?, L, W and # are not supported"},
		{"* * L * *", "day-of-month", "not supported"},
		{"* * 15W * *", "day-of-month", "not supported"},
		{"* * LW * *", "day-of-month", "not supported"},
		{"* * * * 5#3", "day-of-week", "not supported"},
		{"* * * * 5L", "day-of-week", "not supported"},
		{"H * * * *", "minute", "is not a number"},
		{"*/0 * * * *", "minute", "step 0"},
		{"0-10/0 * * * *", "minute", "step 0"},
		{"*/x * * * *", "minute", "step \"x\" in \"*/x\" is not a positive integer"},
		{"*/ * * * *", "minute", "is not a positive integer"},
		{"*/-1 * * * *", "minute", "is not a positive integer"},
		{"*/2/3 * * * *", "minute", "is not a positive integer"},
		{"* */1.5 * * *", "hour", "is not a positive integer"},
		{"1,,2 * * * *", "minute", "empty item"},
		{",1 * * * *", "minute", "empty item"},
		{"1, * * * *", "minute", "empty item"},
		{"5-1 * * * *", "minute", "runs backwards"},
		{"22-2 * * * *", "minute", "runs backwards"},
		{"* * * * 6-0", "day-of-week", "runs backwards"},
		{"+5 * * * *", "minute", "is not a number"},
		{"-5 * * * *", "minute", "is not a number"},
		{"5- * * * *", "minute", "is not a number"},
		{"1-2-3 * * * *", "minute", "is not a number"},
		{"*-5 * * * *", "minute", "is not a number"},
		{"1.5 * * * *", "minute", "is not a number"},
		{"0x1 * * * *", "minute", "is not a number"},
		{"٣ * * * *", "minute", "is not a number"}, // a non-ASCII digit
		{"* ** * * *", "hour", "is not a number"},
	}
	for _, tt := range tests {
		c, err := schedule.ParseCron(tt.expr)
		if err == nil {
			t.Errorf("ParseCron(%q): got %v, want an error", tt.expr, c)
			continue
		}
		pe, ok := wire.As(err)
		if !ok || pe.Code != wire.InvalidRequest || pe.Reason() != "invalid_cron" {
			t.Errorf("ParseCron(%q): got %#v, want invalid_request, reason invalid_cron", tt.expr, err)
			continue
		}
		if got := pe.Details["value"]; got != tt.expr {
			t.Errorf("ParseCron(%q): details.value = %v, want the expression", tt.expr, got)
		}
		field, _ := pe.Details["field"].(string)
		if field != tt.field {
			t.Errorf("ParseCron(%q): details.field = %q, want %q", tt.expr, field, tt.field)
		}
		if tt.field != "" && !strings.Contains(pe.Message, tt.field+" field: ") {
			t.Errorf("ParseCron(%q): message %q does not name the %s field", tt.expr, pe.Message, tt.field)
		}
		if !strings.Contains(pe.Message, tt.want) {
			t.Errorf("ParseCron(%q): message %q, want it to contain %q", tt.expr, pe.Message, tt.want)
		}
	}
}
