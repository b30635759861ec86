print("movies")
