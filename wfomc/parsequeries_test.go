package wfomc

import (
	"reflect"
	"testing"
)

// ParseQueries parses what ParseQuery parses, one text at a time, and
// fails with ParseQuery's error for the first text it refuses.
func TestParseQueries(t *testing.T) {
	m := mustParse(t, `person = {Anna, Bob}
Smokes(person)
Friends(person, person)
2 Friends(x,y) ^ Smokes(x) => Smokes(y)
`)
	texts := []string{"Friends(Anna,Bob)", " Smokes(Anna) ", "Smokes(Bob) ^ !Friends(Bob,Bob)"}
	got, err := ParseQueries(m, texts)
	if err != nil {
		t.Fatal(err)
	}
	for i, text := range texts {
		want, err := ParseQuery(m, text)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got[i].Text, want.Text) || got[i].expr.String() != want.expr.String() {
			t.Errorf("%q: %q %v, ParseQuery %q %v", text, got[i].Text, got[i].expr, want.Text, want.expr)
		}
	}
	for _, bad := range []string{"Smokes(x)", "Cancer(Anna)", "Smokes(Anna). Smokes(Bob)"} {
		_, want := ParseQuery(m, bad)
		_, err := ParseQueries(m, []string{texts[0], bad, texts[1]})
		if err == nil || want == nil || err.Error() != want.Error() {
			t.Errorf("%q: %v, ParseQuery %v", bad, err, want)
		}
	}
}
