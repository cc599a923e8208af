"""The names a simulated life draws from: people, places, employers, items, books."""

from __future__ import annotations

USERS = ("Maya", "Jonas", "Priya", "Leo", "Ines", "Tomas", "Hana", "Owen")
FRIENDS = ("Chloe", "Ravi", "Aisha", "Tom", "Lena", "Marco", "Yuki", "Sofia", "Ben", "Nadia", "Felix", "Grace")
RELATIVES = ("my brother", "my sister", "my mum", "my dad", "my cousin", "my neighbour", "a colleague")

#: home currency -> rates of the others into it (what one unit of each is worth)
CURRENCIES = {
    "EUR": {"GBP": 1.17, "USD": 0.92},
    "GBP": {"EUR": 0.86, "USD": 0.79},
    "USD": {"EUR": 1.09, "GBP": 1.27},
}
SYMBOLS = {"EUR": "€", "GBP": "£", "USD": "$"}
CURRENCY_WORDS = {"EUR": ("euros", "EUR"), "GBP": ("pounds", "GBP"), "USD": ("dollars", "USD")}

#: (destination, ISO country)
DESTINATIONS = (
    ("Lisbon", "PT"),
    ("Porto", "PT"),
    ("Seville", "ES"),
    ("Valencia", "ES"),
    ("Bologna", "IT"),
    ("Naples", "IT"),
    ("Vienna", "AT"),
    ("Krakow", "PL"),
    ("Ghent", "BE"),
    ("Copenhagen", "DK"),
    ("Edinburgh", "GB"),
    ("Galway", "IE"),
    ("Lyon", "FR"),
    ("Marseille", "FR"),
    ("Ljubljana", "SI"),
    ("Tallinn", "EE"),
    ("Bergen", "NO"),
    ("Athens", "GR"),
    ("Montreal", "CA"),
    ("Kyoto", "JP"),
    ("Istanbul", "TR"),
    ("Budapest", "HU"),
    ("Split", "HR"),
    ("Hamburg", "DE"),
)
#: (city, ISO country) of the homes
CITIES = (
    ("Bristol", "GB"),
    ("Leeds", "GB"),
    ("Utrecht", "NL"),
    ("Rotterdam", "NL"),
    ("Munich", "DE"),
    ("Leipzig", "DE"),
    ("Toulouse", "FR"),
    ("Bilbao", "ES"),
    ("Turin", "IT"),
    ("Aarhus", "DK"),
)
RESTAURANTS = (
    "Casa Lola",
    "Sakura Tei",
    "The Green Fork",
    "Bistro Margot",
    "Dishoom",
    "Nopa",
    "Little Saigon",
    "Osteria Nove",
    "The Brass Lantern",
    "Taqueria Luz",
    "Golden Lotus",
    "Café Brel",
    "Pho Hoa",
    "Mezze House",
    "The Olive Tree",
    "Ramen Bar Kyu",
    "Burger Shack",
    "La Cantina",
    "The Fig Tree",
    "Saffron Palace",
)
EMPLOYERS = (
    "Northwind",
    "Brightline",
    "Acme Analytics",
    "Helio Labs",
    "Quarry & Co",
    "Bluefin Health",
    "Tessellate",
    "Orchard Bank",
    "Lumen Studio",
    "Fieldstone",
)
TITLES = (
    "data analyst",
    "product designer",
    "software engineer",
    "project manager",
    "UX researcher",
    "marketing lead",
    "operations manager",
    "backend developer",
)
#: (item, lowest price, highest price, shop)
ITEMS = (
    ("standing desk", 220, 480, "IKEA"),
    ("running shoes", 70, 160, "Decathlon"),
    ("rain jacket", 60, 190, "Uniqlo"),
    ("espresso machine", 150, 420, "John Lewis"),
    ("noise-cancelling headphones", 120, 350, "Amazon"),
    ("road bike helmet", 45, 130, "Decathlon"),
    ("cast iron pan", 30, 90, "Lakeland"),
    ("yoga mat", 20, 60, "Decathlon"),
    ("e-reader", 90, 200, "Amazon"),
    ("winter coat", 110, 320, "Zara"),
    ("desk lamp", 25, 80, "IKEA"),
    ("backpack", 40, 140, "Fjallraven"),
    ("mechanical keyboard", 70, 190, "Amazon"),
    ("houseplant", 12, 45, "the market"),
    ("wool sweater", 45, 130, "Uniqlo"),
    ("board game", 25, 70, "a little shop"),
    ("tent", 90, 300, "Decathlon"),
    ("blender", 40, 150, "Argos"),
    ("watercolour set", 20, 65, "an art shop"),
    ("smart watch", 150, 400, "Amazon"),
)
#: (activity, shortest km, longest km, minutes per km)
ACTIVITIES = (("run", 3.0, 16.0, 5.8), ("ride", 12.0, 70.0, 2.4), ("swim", 0.8, 3.0, 28.0), ("hike", 6.0, 22.0, 13.0))
BOOKS = (
    ("The Overstory", "Richard Powers"),
    ("Piranesi", "Susanna Clarke"),
    ("Klara and the Sun", "Kazuo Ishiguro"),
    ("The Dispossessed", "Ursula K. Le Guin"),
    ("Middlemarch", "George Eliot"),
    ("Stoner", "John Williams"),
    ("The Remains of the Day", "Kazuo Ishiguro"),
    ("Braiding Sweetgrass", "Robin Wall Kimmerer"),
    ("Project Hail Mary", "Andy Weir"),
    ("The Left Hand of Darkness", "Ursula K. Le Guin"),
    ("A Gentleman in Moscow", "Amor Towles"),
    ("Circe", "Madeline Miller"),
    ("The Name of the Rose", "Umberto Eco"),
    ("Normal People", "Sally Rooney"),
    ("Sapiens", "Yuval Noah Harari"),
    ("The Road", "Cormac McCarthy"),
    ("Educated", "Tara Westover"),
    ("Never Let Me Go", "Kazuo Ishiguro"),
    ("The Hobbit", "J. R. R. Tolkien"),
    ("Beloved", "Toni Morrison"),
    ("Pachinko", "Min Jin Lee"),
    ("The Sea, the Sea", "Iris Murdoch"),
    ("Station Eleven", "Emily St. John Mandel"),
    ("Dune", "Frank Herbert"),
)
WISH_PLACES = ("Japan", "Patagonia", "Iceland", "New Zealand", "Peru", "Vietnam", "Morocco", "the Faroe Islands")
HOME_DISHES = (
    "a mushroom risotto",
    "a big pot of chilli",
    "pad thai",
    "a roast chicken",
    "dal and rice",
    "homemade pizza",
    "a lentil soup",
    "fish tacos",
)
