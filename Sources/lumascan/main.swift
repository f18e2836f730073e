print("lumascan")
