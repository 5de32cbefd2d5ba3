package documind_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jobpoll/poll/providers/documind"
)

func TestTimeUnmarshal(t *testing.T) {
	utc := time.Date(2024, 1, 15, 10, 30, 0, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Time
	}{
		{`"2024-01-15T10:30:00Z"`, utc},
		{`"2024-01-15T10:30:00.123456Z"`, utc.Add(123456 * time.Microsecond)},
		{`"2024-01-15T11:30:00+01:00"`, utc},
		{`"2024-01-15T10:30:00"`, utc},
		{`"2024-01-15T10:30:00.5"`, utc.Add(500 * time.Millisecond)},
		{`"2024-01-15 10:30:00+00:00"`, utc},
		{`"2024-01-15 10:30:00"`, utc},
		{`null`, time.Time{}},
		{`""`, time.Time{}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			var got documind.Time
			require.NoError(t, json.Unmarshal([]byte(tt.in), &got))
			assert.True(t, tt.want.Equal(got.Time), "got %v, want %v", got.Time, tt.want)
		})
	}
}

func TestTimeUnmarshalRefuses(t *testing.T) {
	for _, in := range []string{`"15/01/2024"`, `12345`, `true`} {
		var got documind.Time
		err := json.Unmarshal([]byte(in), &got)
		require.Error(t, err, in)
		assert.Contains(t, err.Error(), "documind: ")
	}
}

func TestTimeMarshal(t *testing.T) {
	data, err := json.Marshal(struct {
		Set, Unset documind.Time
	}{Set: documind.Time{Time: time.Date(2024, 1, 15, 10, 30, 0, 5000, time.UTC)}})
	require.NoError(t, err)
	assert.JSONEq(t, `{"Set":"2024-01-15T10:30:00.000005Z","Unset":null}`, string(data))
}
