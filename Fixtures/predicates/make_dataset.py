#!/usr/bin/env python3
"""Writes dataset.json: the people and departments every predicate fixture case runs against.

The data is written out by hand below (no randomness) so that a reader can check an expected id
set by looking at this table. Birthdays are UTC calendar dates; `uuid` is derived from the id.
"""
import json, os

# id, name, age, salary, birthday, nickname, email, active, department, friends
PEOPLE = [
    (1, "Alice", 34, 85000.0, "1990-03-15", "Ali", "alice@example.com", True, 101, [2, 3]),
    (2, "Bob", 45, 72000.5, "1979-07-01", None, "bob@example.org", True, 101, [1]),
    (3, "Carol", 29, 91000.0, "1995-11-30", "Caz", "carol@example.com", False, 102, [1, 4, 5]),
    (4, "Dave", 52, 120000.0, "1972-01-20", "D", "dave@corp.net", True, 102, []),
    (5, "Eve", 23, 48000.0, "2001-05-05", None, "eve@example.com", True, 103, [6]),
    (6, "Frank", 61, 99000.0, "1963-09-12", "Frankie", "frank@corp.net", False, 103, [5, 7]),
    (7, "Grace", 38, 105000.0, "1986-02-28", None, "grace@example.org", True, 104, []),
    (8, "Heidi", 41, 67000.0, "1983-06-17", "Hei", "heidi@example.com", True, 104, [7, 9, 10]),
    (9, "Ivan", 27, 53000.0, "1997-12-24", None, "ivan@corp.net", False, None, [8]),
    (10, "José", 33, 61000.0, "1991-08-08", "Pepe", "jose@example.com", True, 101, [1, 2]),
    (11, "Zoë", 26, 58000.0, "1998-04-01", "Zo", "zoe@example.org", True, 105, []),
    (12, "Renée", 47, 88000.0, "1977-10-10", None, "renee@corp.net", True, 105, [11]),
    (13, "mallory", 31, 45000.0, "1993-01-01", "Mal", "mallory@evil.test", False, None, []),
    (14, "Niaj", 36, 77000.0, "1988-03-03", None, "niaj@example.com", True, 102, [3]),
    (15, "Olivia", 22, 39000.0, "2002-07-19", "Liv", "olivia@example.com", True, 103, [5, 16]),
    (16, "Peggy", 58, 132000.0, "1966-05-25", None, "peggy@corp.net", True, 104, [7, 8]),
    (17, "Quentin", 44, 70000.0, "1980-12-12", "Q", "quentin@example.org", False, 101, []),
    (18, "Rupert", 30, 64000.0, "1994-09-09", None, "rupert@example.com", True, 102, [14]),
    (19, "Sybil", 39, 95000.0, "1985-11-11", "Syb", "sybil@example.com", True, 105, [12, 11]),
    (20, "Trent", 50, 110000.0, "1974-04-04", "T", "trent@corp.net", True, 101, [1, 2, 3, 4]),
]

# id, name, budget (integer), rating (decimal as a string)
DEPARTMENTS = [
    (101, "Engineering", 1000000, "4.5"),
    (102, "Research & Development", 750000, "4.25"),
    (103, "Sales", 400000, "3.1"),
    (104, "Marketing", 300000, "3.75"),
    (105, "Résumé Services", 50000, "2.0"),
    (106, "Empty", 0, "0"),
]


def uuid_of(pid):
    return "00000000-0000-4000-8000-%012d" % pid


def dataset():
    people = [dict(id=i, name=n, age=a, salary=s, birthday=b, nickname=nk, email=e, active=ac,
                   uuid=uuid_of(i), department=d, friends=f)
              for (i, n, a, s, b, nk, e, ac, d, f) in PEOPLE]
    departments = [dict(id=i, name=n, budget=b, rating=r) for (i, n, b, r) in DEPARTMENTS]
    return dict(people=people, departments=departments)


if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "dataset.json"), "w", encoding="utf-8") as f:
        json.dump(dataset(), f, ensure_ascii=False, indent=1)
        f.write("\n")
