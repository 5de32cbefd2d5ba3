package documind

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"time"
)

// Time is a timestamp as Documind writes it: ISO 8601, or null. It embeds
// time.Time, so Format, Before, IsZero and the rest work as usual; null
// reads as the zero time and the zero time writes as null.
//
// Besides RFC 3339, it reads a timestamp without a zone offset (as Python
// writes a naive datetime) as UTC, and a space instead of the "T": a
// timestamp the strict time.Time decoder refuses would otherwise fail every
// poll with a permanent error.
type Time struct {
	time.Time
}

// timeLayouts are tried in order; time.Parse accepts any number of
// fractional digits for the ".999999999" part, or none.
var timeLayouts = [...]string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02 15:04:05.999999999",
}

// UnmarshalJSON reads an ISO 8601 string or null.
func (t *Time) UnmarshalJSON(data []byte) error {
	if bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
		*t = Time{}
		return nil
	}
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return fmt.Errorf("documind: a timestamp must be a JSON string, got %.40s", data)
	}
	if s == "" {
		*t = Time{}
		return nil
	}
	for _, layout := range timeLayouts {
		if parsed, err := time.Parse(layout, s); err == nil {
			*t = Time{parsed}
			return nil
		}
	}
	return fmt.Errorf("documind: the timestamp %q is not ISO 8601", s)
}

// MarshalJSON writes RFC 3339, or null for the zero time.
func (t Time) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte("null"), nil
	}
	return []byte(strconv.Quote(t.Format(time.RFC3339Nano))), nil
}
