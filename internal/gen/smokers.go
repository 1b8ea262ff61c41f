package gen

// LearnSmokersMLN is friends and smokers on four people with a Stress
// predicate, and LearnSmokersDB a training database for it (one atom,
// Cancer(C), unknown): the model the online learners' tests and the Beam
// trainer's tests learn on.
const LearnSmokersMLN = `
person = {A, B, C, D}
Smokes(person)
Cancer(person)
Stress(person)
Friends(person, person)

1.5 Smokes(x) => Cancer(x)
1.1 Friends(x, y) ^ Smokes(x) => Smokes(y)
0.8 Stress(x) => Smokes(x)
-0.5 Friends(x, y)
`

// LearnSmokersDB: see LearnSmokersMLN.
const LearnSmokersDB = `
Friends(A, B)
Friends(B, A)
Friends(B, C)
Friends(C, D)
Smokes(A)
Smokes(B)
Cancer(A)
Cancer(B)
Friends(D, A)
Stress(A)
Stress(C)
?Cancer(C)
`
