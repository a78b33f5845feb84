from forge_tools.cli.app import main

if __name__ == "__main__":
    main()
