package mln_test

import (
	"fmt"
	"strings"

	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/mln"
)

func Example() {
	m, err := mlnfile.Parse("smokers.mln", []byte(`
person = {Anna, Bob}
Friends(person, person)
Smokes(person)
Cancer(person)

1.5 Smokes(x) => Cancer(x)
1.1 Friends(x, y) => (Smokes(x) <=> Smokes(y))
Friends(x, y) => Friends(y, x).
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range m.Formulas {
		fmt.Printf("%-45s vars:", f.String())
		for _, v := range f.Vars {
			fmt.Printf(" %s:%s", v.Name, v.Type)
		}
		fmt.Println()
	}

	db, err := mlnfile.ReadDB(strings.NewReader("Friends(Anna, Carl)\n!Smokes(Bob)\n"), "smokers.db", m)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(mln.Domains(m, db)["person"])
	tv, ok := db.LookupAtom("Smokes", "Bob")
	fmt.Println("Smokes(Bob):", tv, ok)
	cw, _ := mln.ClosedWorld(m, db, []string{"Cancer"}, nil, nil)
	fmt.Println("closed world:", cw)

	_, err = mlnfile.Parse("bad.mln", []byte("Smokes(person)\n1 Smoke(x)\n"))
	fmt.Println(err)
	// Output:
	// 1.5 Smokes(x) => Cancer(x)                    vars: x:person
	// 1.1 Friends(x,y) => (Smokes(x) <=> Smokes(y)) vars: x:person y:person
	// Friends(x,y) => Friends(y,x).                 vars: x:person y:person
	// [Anna Bob Carl]
	// Smokes(Bob): false true
	// closed world: map[Cancer:false Friends:true Smokes:true]
	// bad.mln:2:3: unknown predicate "Smoke"; declare it, e.g. Smoke(person), or did you mean "Smokes"?
}

// Expand writes per-constant and starred formulas out, one formula (and
// so one weight to learn) per copy, as Alchemy does before learning.
func ExampleExpand() {
	m, err := mlnfile.Parse("univ.mln", []byte(`
phase = {Pre_Quals, Post_Quals}
person = {Ann, Bob}
Student(person)
InPhase(person, phase)
InPhase(s, +ph) => Student(s)
*InPhase(s, Pre_Quals) v *InPhase(s, Post_Quals)
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	out, origin, err := mln.Expand(m, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for k, f := range out.Formulas {
		fmt.Printf("%d  %s\n", origin[k]+1, f.Text)
	}
	// Output:
	// 1  InPhase(s,Pre_Quals) => Student(s)
	// 1  InPhase(s,Post_Quals) => Student(s)
	// 2  InPhase(s,Pre_Quals) v InPhase(s,Post_Quals)
	// 2  !InPhase(s,Pre_Quals) v InPhase(s,Post_Quals)
	// 2  InPhase(s,Pre_Quals) v !InPhase(s,Post_Quals)
	// 2  !InPhase(s,Pre_Quals) v !InPhase(s,Post_Quals)
}
